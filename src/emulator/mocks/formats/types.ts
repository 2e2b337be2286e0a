/**
 * @module
 * What a mock server needs to know about one wire format: which paths it serves, where the key
 * is, how a request names its model and options, and how answers, streams and errors look.
 */

import type { JsonRecord } from "../../../providers/json.ts";
import type { SseEvent } from "../../../providers/types.ts";
import type { MockAnswer } from "../canonical-answer.ts";

/** What the path of a request says. */
export interface MockRoute {
  /** The model when the path names it (Workers AI, Google), else `null`. */
  readonly model: string | null;
  /** True when the path asks for a stream (Google's `:streamGenerateContent`). */
  readonly streamByPath: boolean;
}

/** What the body of a request says. */
export interface MockRequest {
  readonly model: string;
  readonly stream: boolean;
  readonly maxTokens?: number;
  /** All message text, joined: the source of the input token count. */
  readonly promptText: string;
  /** OpenAI's `stream_options.include_usage`. */
  readonly includeUsage: boolean;
  /** The text of a trailing assistant message (a prefill), when the request ends with one. */
  readonly prefill?: string;
}

/** A request problem, answered as a 400 in the provider's format. */
export interface MockRequestProblem {
  readonly problem: string;
}

/** The error situations a mock answers, each mapped to the provider's own error type. */
export type MockErrorKind =
  | "unauthorized"
  | "bad_request"
  | "not_found"
  | "method_not_allowed"
  | "too_large"
  | "rate_limit"
  | "server_error"
  | "unavailable"
  | "overloaded"
  | "context_length"
  | "content_filter";

/** A full stream, and how many events come before the first text event. */
export interface MockStream {
  readonly events: readonly SseEvent[];
  readonly preludeCount: number;
}

export interface MockStreamOptions {
  /** Send usage even when the format makes it optional (OpenAI's `include_usage`). */
  readonly includeUsage: boolean;
  /** False for the `missing-done` fault: end the stream without its end marker. */
  readonly endMarker: boolean;
}

export interface MockWireFormat {
  /**
   * True when the provider continues a trailing assistant message (a prefill) instead of
   * answering anew, as Anthropic does.
   */
  readonly continuesPrefill?: boolean;
  /** The SSE event name of an error sent inside a stream (Anthropic's `error`); none when absent. */
  readonly streamErrorEvent?: string;
  /** The route for a path, or `undefined` when the provider has no such endpoint. */
  matchRoute(pathname: string): MockRoute | undefined;
  /** The key the request carries, or `undefined` when the auth header is missing. */
  readKey(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined;
  /** A required header that is missing (Anthropic's `anthropic-version`), else `undefined`. */
  checkHeaders?(
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ): string | undefined;
  /** Reads the request body. */
  readRequest(body: JsonRecord, route: MockRoute): MockRequest | MockRequestProblem;
  /** The non-streamed response body. */
  answerBody(answer: MockAnswer): unknown;
  /** The streamed response. */
  streamEvents(answer: MockAnswer, options: MockStreamOptions): MockStream;
  /** The error body for a situation, in the provider's format. */
  errorBody(kind: MockErrorKind, status: number, message: string): unknown;
}

/** Reads one header as a string (the first value when repeated). */
export function headerValue(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Reads a `Bearer` token from the `authorization` header. */
export function readBearer(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): string | undefined {
  const value = headerValue(headers, "authorization");
  const match = value === undefined ? null : /^Bearer\s+(.*)$/i.exec(value.trim());
  return match?.[1]?.trim();
}

/** Reads an optional positive integer limit; a problem when present but not one. */
export function readTokenLimit(
  value: unknown,
  field: string,
): { readonly maxTokens?: number } | MockRequestProblem {
  if (value === undefined || value === null) return {};
  if (typeof value === "number" && Number.isInteger(value) && value >= 1) {
    return { maxTokens: value };
  }
  return { problem: `${field} must be a positive integer, got ${JSON.stringify(value)}.` };
}

/** Text of a message `content`: a string, or an array of `{ text }` parts. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) =>
      typeof part === "object" && part !== null && "text" in part && typeof part.text === "string"
        ? part.text
        : "",
    )
    .join(" ");
}

/**
 * The prefill of a request whose last message is the assistant's (`role: "assistant"`, or
 * Gemini's `role: "model"`), as `{ prefill }`; `{}` otherwise.
 */
export function prefillOf(messages: readonly unknown[]): { readonly prefill?: string } {
  const last = messages.at(-1);
  if (typeof last !== "object" || last === null || !("role" in last)) return {};
  if (last.role !== "assistant" && last.role !== "model") return {};
  const content = "content" in last ? last.content : "parts" in last ? last.parts : undefined;
  return { prefill: contentText(content) };
}
