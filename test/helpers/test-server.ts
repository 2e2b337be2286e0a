/**
 * @module
 * The project's one msw harness. `createTestServer({ [url]: { response } })` intercepts `fetch`
 * for the calling test file, answers each URL with a typed response, records every call (URL,
 * method, headers, body) and fails the test on any request it was not told about.
 *
 * Call it at the top of a test file or `describe` block: it registers `beforeAll` / `beforeEach`
 * / `afterEach` / `afterAll` hooks (start, reset responses and calls, check for unhandled
 * requests, stop). Change a URL's answer inside a test with
 * `server.urls[url].response = ...`; it is reset before the next test.
 *
 * @example
 * const server = createTestServer({ "https://api.example.test/v1/chat": { response: { type: "json", body: { ok: true } } } });
 * it("sends the key", async () => {
 *   await callTheApi();
 *   expect(server.calls[0]?.headers.authorization).toBe("Bearer test-key");
 * });
 */

import { HttpResponse, http, passthrough } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";

/** One server-sent event: raw text (sent as-is) or `{ event?, data }`. */
export type TestSseEvent = string | { readonly event?: string; readonly data: string | object };

/** A typed answer. */
export type TestResponse =
  /** A JSON body (status 200 unless given). */
  | {
      readonly type: "json";
      readonly body: unknown;
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** An error status with a JSON (object) or text (string) body. */
  | {
      readonly type: "error";
      readonly status: number;
      readonly body?: string | object;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** A raw text body, e.g. a malformed one. */
  | {
      readonly type: "text";
      readonly body: string;
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /**
   * A `text/event-stream` body. `end`: `close` (default) ends it cleanly; `cut` breaks the
   * connection after the events; `stall` keeps it open, silent, until the request is aborted.
   */
  | {
      readonly type: "sse";
      readonly events: readonly TestSseEvent[];
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly end?: "close" | "cut" | "stall";
    }
  /** The connection fails: `fetch` rejects with a TypeError. */
  | { readonly type: "network-error" }
  /** No answer until the request is aborted. */
  | { readonly type: "hang" };

/** One recorded request. */
export interface RecordedCall {
  readonly url: string;
  readonly method: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as text ("" without one). */
  readonly bodyText: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly body: unknown;
}

/**
 * How a URL answers: one response for every call, a list used in order (the last one repeats),
 * or a function of the call.
 */
export type ResponseSpec =
  | TestResponse
  | readonly TestResponse[]
  | ((call: RecordedCall, index: number) => TestResponse | Promise<TestResponse>);

/** A URL's entry; `response` may be replaced inside a test. */
export interface UrlEntry {
  response: ResponseSpec;
}

export interface TestServerOptions {
  /** Requests to let through to the real network (default: `data:` URLs only). */
  readonly passthrough?: (url: URL) => boolean;
}

export interface TestServer {
  /** The answer per URL (exact URL without query, or a prefix ending in `*`). */
  readonly urls: Record<string, UrlEntry>;
  /** Every handled request, in order. */
  readonly calls: RecordedCall[];
  /** The calls to one URL key. */
  callsTo(url: string): RecordedCall[];
}

/** Creates the harness and registers its vitest hooks. */
export function createTestServer(
  routes: Readonly<Record<string, { readonly response: ResponseSpec }>>,
  options: TestServerOptions = {},
): TestServer {
  const initial = Object.entries(routes);
  const urls: Record<string, UrlEntry> = {};
  const calls: RecordedCall[] = [];
  const callsByKey = new Map<string, RecordedCall[]>();
  const unhandled: string[] = [];
  const letThrough = options.passthrough ?? ((url: URL) => url.protocol === "data:");

  const reset = () => {
    for (const key of Object.keys(urls)) delete urls[key];
    for (const [url, entry] of initial) urls[url] = { response: entry.response };
    calls.length = 0;
    callsByKey.clear();
    unhandled.length = 0;
  };
  reset();

  const server = setupServer(
    http.all("*", async ({ request }) => {
      const url = new URL(request.url);
      if (letThrough(url)) return passthrough();
      const key = keyFor(urls, url);
      if (key === undefined) {
        unhandled.push(`${request.method} ${request.url}`);
        return HttpResponse.error();
      }
      const call = await recordCall(request);
      calls.push(call);
      const forKey = callsByKey.get(key) ?? [];
      forKey.push(call);
      callsByKey.set(key, forKey);
      const answer = await pick(urls[key]!.response, call, forKey.length - 1);
      return respond(answer, request.signal);
    }),
  );

  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  beforeEach(reset);
  afterEach(() => {
    const missed = [...unhandled];
    unhandled.length = 0;
    expect(missed, "requests the test server was not told about").toEqual([]);
  });
  afterAll(() => server.close());

  return { urls, calls, callsTo: (url) => callsByKey.get(url) ?? [] };
}

function keyFor(urls: Record<string, UrlEntry>, url: URL): string | undefined {
  const withoutQuery = `${url.origin}${url.pathname}`;
  if (urls[url.href] !== undefined) return url.href;
  if (urls[withoutQuery] !== undefined) return withoutQuery;
  return Object.keys(urls)
    .filter((key) => key.endsWith("*") && url.href.startsWith(key.slice(0, -1)))
    .sort((a, b) => b.length - a.length)[0];
}

async function recordCall(request: Request): Promise<RecordedCall> {
  const bodyText = request.body === null ? "" : await request.clone().text();
  let body: unknown;
  try {
    body = bodyText === "" ? undefined : JSON.parse(bodyText);
  } catch {
    body = undefined;
  }
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  return { url: request.url, method: request.method, headers, bodyText, body };
}

async function pick(spec: ResponseSpec, call: RecordedCall, index: number): Promise<TestResponse> {
  if (typeof spec === "function") return spec(call, index);
  if (Array.isArray(spec)) {
    const list = spec as readonly TestResponse[];
    return list[Math.min(index, list.length - 1)]!;
  }
  return spec as TestResponse;
}

function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

async function respond(answer: TestResponse, signal: AbortSignal): Promise<Response> {
  switch (answer.type) {
    case "json":
      return HttpResponse.json(answer.body as object, {
        status: answer.status ?? 200,
        headers: answer.headers ?? {},
      });
    case "error":
      return typeof answer.body === "object"
        ? HttpResponse.json(answer.body, { status: answer.status, headers: answer.headers ?? {} })
        : // No body at all when none is given: a 304 or 204 may not have one.
          new HttpResponse(answer.body ?? null, {
            status: answer.status,
            headers: answer.headers ?? {},
          });
    case "text":
      return new HttpResponse(answer.body, {
        status: answer.status ?? 200,
        headers: answer.headers ?? {},
      });
    case "sse":
      return new HttpResponse(sseBody(answer.events, answer.end ?? "close", signal), {
        status: answer.status ?? 200,
        headers: { "content-type": "text/event-stream", ...(answer.headers ?? {}) },
      });
    case "network-error":
      return HttpResponse.error();
    case "hang":
      // The client has gone when the signal fires; the answer is never read.
      return untilAborted(signal).catch(() => HttpResponse.error());
  }
}

function sseBody(
  events: readonly TestSseEvent[],
  end: "close" | "cut" | "stall",
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let index = 0;
  // One event per pull, so that a cut arrives after every event was read (an error raised while
  // events are still queued would discard them).
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const event = events[index++];
      if (event !== undefined) {
        controller.enqueue(encoder.encode(formatEvent(event)));
        return;
      }
      if (end === "close") controller.close();
      else if (end === "cut") {
        controller.error(new TypeError("terminated: connection cut by the test server"));
      } else return untilAborted(signal).catch((reason: unknown) => controller.error(reason));
    },
  });
}

/** One event in wire form. */
export function formatEvent(event: TestSseEvent): string {
  if (typeof event === "string") return event;
  const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
  const name = event.event === undefined ? "" : `event: ${event.event}\n`;
  return `${name}${data
    .split("\n")
    .map((line) => `data: ${line}`)
    .join("\n")}\n\n`;
}
