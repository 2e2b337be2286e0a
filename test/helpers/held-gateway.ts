/**
 * @module
 * A gateway stub for the client's timing tests: it holds every request until the test answers
 * it, so fake timers decide what comes first. An answer is the request's first step's recorded
 * answer (`test/__fixtures__/providers/`), as a stream when the step asked for one, with
 * `cf-aig-step: 0` of what the request sent; a request aborted before its answer rejects.
 * {@link onFakeTime} runs each test of a file on fake timers, after a warm-up on real time.
 */
import { afterEach, beforeAll, beforeEach, expect, vi } from "vitest";
import type { FetchFunction, GatewayClient } from "../../src/client/index.ts";
import { fixtureJson, fixtureText, messages, servedHeaders } from "../client/helpers.ts";

const models: Record<string, string> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-4o-mini",
  "workers-ai": "@cf/meta/llama-3.1-8b-instruct",
};

/** How a held request is answered. */
export interface HeldAnswer {
  /** Default 200; another status answers an error body. */
  readonly status?: number;
  /** A stream's headers only, then nothing: its first text never comes. */
  readonly silent?: boolean;
}

/** One request the stub holds: what was sent, and how to answer it. */
export interface HeldRequest {
  /** The providers of the steps it sent, in order. */
  readonly steps: string[];
  readonly signal: AbortSignal | undefined;
  answer(how?: HeldAnswer): void;
}

/** A gateway whose answers the test releases one by one, and the requests it holds. */
export function heldGateway(): { requests: HeldRequest[]; fetch: FetchFunction } {
  const requests: HeldRequest[] = [];
  const fetch: FetchFunction = (_url, init) =>
    new Promise<Response>((resolve, reject) => {
      const sent = JSON.parse(String(init?.body)) as {
        provider: string;
        query: { stream?: boolean };
      }[];
      const steps = sent.map((step) => step.provider);
      const signal = init?.signal ?? undefined;
      signal?.addEventListener("abort", () => reject(signal.reason));
      requests.push({
        steps,
        signal,
        answer: ({ status = 200, silent = false } = {}) => {
          const provider = steps[0]!;
          const streamed = sent[0]!.query.stream === true;
          const body = !streamed
            ? JSON.stringify(
                status === 200
                  ? fixtureJson(`providers/${provider}/response.json`)
                  : { error: "no" },
              )
            : silent
              ? new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) })
              : fixtureText(`providers/${provider}/stream.sse`);
          const type = streamed ? "text/event-stream" : "application/json";
          resolve(
            new Response(body, {
              status,
              headers: { "content-type": type, ...servedHeaders(0, provider, models[provider]!) },
            }),
          );
        },
      });
    });
  return { requests, fetch };
}

/**
 * Runs each test of the calling file on fake timers from `now`. First, on real time, a client
 * makes one call of each kind given, answered at once, so that what a call loads on first use
 * (a provider's format, the stream reader) is loaded before the fake timers only move time.
 */
export function onFakeTime(
  warm: () => { client: GatewayClient; stub: ReturnType<typeof heldGateway> },
  kinds: readonly ("chat" | "stream")[],
  now = "2026-05-01T12:00:00.000Z",
): void {
  beforeAll(async () => {
    const { client, stub } = warm();
    for (const kind of kinds) {
      const sent = stub.requests.length;
      const call =
        kind === "chat"
          ? client.chat({ route: "default", messages })
          : client.stream({ route: "default", messages }).collect();
      await vi.waitFor(() => expect(stub.requests).toHaveLength(sent + 1));
      stub.requests[sent]!.answer();
      await call;
    }
  });
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse(now) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}
