/**
 * @module
 * Test helpers for the mock providers: requests built by the real provider adapters, streams read
 * by the real SSE and stream parsers.
 */

import { FaultScheduleError, type MockProviders } from "../../../src/emulator/mocks/index.ts";
import { createStreamParser, getProvider, parseSseStream } from "../../../src/providers/index.ts";
import type { ChatMessage, StreamDelta } from "../../../src/providers/types.ts";

/** One provider per wire format, with a model it serves. */
export const formatCases = [
  { provider: "openai", model: "gpt-4o-mini" },
  { provider: "anthropic", model: "claude-sonnet-4-5" },
  { provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct" },
  { provider: "google-ai-studio", model: "gemini-2.5-flash" },
] as const;

/** Seven words of message text: the mock counts seven tokens in. */
export const messages: readonly ChatMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Say hello to the suite" },
];
export const promptTokens = 7;

export interface ChatCallOptions {
  readonly model: string;
  readonly stream?: boolean;
  readonly maxTokens?: number;
  /** The key to send; `null` sends no auth header. Default `test-key`. */
  readonly key?: string | null;
  readonly signal?: AbortSignal;
  /** Extra or replacement headers. */
  readonly headers?: Record<string, string>;
  /** Ends the messages with this assistant text (a prefill to continue). */
  readonly prefill?: string;
}

/** Sends a chat request to a mock the way a client of that provider would. */
export function chat(mocks: MockProviders, provider: string, options: ChatCallOptions) {
  const adapter = getProvider(provider);
  const request = {
    messages:
      options.prefill === undefined
        ? messages
        : [...messages, { role: "assistant" as const, content: options.prefill }],
    ...(options.stream === undefined ? {} : { stream: options.stream }),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
  };
  const key = options.key === undefined ? "test-key" : options.key;
  const url = `${mocks.urls[provider]}${adapter.endpoint(options.model, request)}`;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...adapter.defaultHeaders,
    ...(key === null ? {} : adapter.authHeaders(key)),
    ...options.headers,
  };
  if (key === null && provider === "anthropic") headers["anthropic-version"] = "2023-06-01";
  return fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(adapter.requestBody(options.model, request)),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/** What a client reading a stream sees. */
export interface StreamReading {
  readonly text: string;
  readonly deltas: readonly StreamDelta[];
  readonly done: boolean;
  readonly errors: readonly StreamDelta[];
  /** The error the body stream threw (a cut connection), if any. */
  readonly failure?: unknown;
}

/**
 * Reads a streamed response with `parseSseStream` and the provider's own stream parser.
 * `onFirstText` runs once, when the first text arrives.
 */
export async function readStream(
  provider: string,
  response: Response,
  onFirstText?: () => void,
): Promise<StreamReading> {
  const parse = createStreamParser(provider);
  const deltas: StreamDelta[] = [];
  let failure: unknown;
  try {
    for await (const event of parseSseStream(response.body!)) {
      const parsed = parse(event);
      const firstText = !deltas.some((delta) => delta.type === "text");
      deltas.push(...parsed);
      if (firstText && parsed.some((delta) => delta.type === "text")) onFirstText?.();
    }
  } catch (error) {
    failure = error;
  }
  const text = deltas.map((delta) => (delta.type === "text" ? delta.text : "")).join("");
  return {
    text,
    deltas,
    done: deltas.some((delta) => delta.type === "done"),
    errors: deltas.filter((delta) => delta.type === "error"),
    ...(failure === undefined ? {} : { failure }),
  };
}

/** The provider's normalised error for a response. */
export async function readError(provider: string, response: Response) {
  return getProvider(provider).parseError(response.status, await response.text());
}

/** The `FaultScheduleError` an action throws; fails the test when it throws nothing or another error. */
export function catchError(action: () => unknown): FaultScheduleError {
  try {
    action();
  } catch (error) {
    if (error instanceof FaultScheduleError) return error;
    throw error;
  }
  throw new Error("expected a FaultScheduleError");
}

/** The `FaultScheduleError` an async action rejects with. */
export async function catchAsyncError(action: () => Promise<unknown>): Promise<FaultScheduleError> {
  try {
    await action();
  } catch (error) {
    if (error instanceof FaultScheduleError) return error;
    throw error;
  }
  throw new Error("expected a FaultScheduleError");
}
