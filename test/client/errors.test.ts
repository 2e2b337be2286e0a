import { describe, expect, it } from "vitest";
import {
  AbortedError,
  AllStepsFailedError,
  ApiCallError,
  AuthenticationError,
  DeadlineExceededError,
  GatewayError,
  IncompleteStreamError,
  InvalidOptionsError,
  InvalidResponseError,
  NetworkError,
  OutputRejectedError,
  parseRetryAfter,
  RateLimitedError,
  TimeoutError,
  UnknownRouteError,
} from "../../src/client/errors.ts";
import { StepwiseError } from "../../src/errors/index.ts";

const url = "https://gateway.test/v1/account/gateway";
const step = { index: 1, provider: "openai", model: "gpt-4o-mini" };

describe("ApiCallError.fromResponse", () => {
  it("picks the subclass from the status", () => {
    expect(ApiCallError.fromResponse({ status: 401, url })).toBeInstanceOf(AuthenticationError);
    expect(ApiCallError.fromResponse({ status: 403, url })).toBeInstanceOf(AuthenticationError);
    expect(ApiCallError.fromResponse({ status: 429, url })).toBeInstanceOf(RateLimitedError);
    const plain = ApiCallError.fromResponse({ status: 500, url });
    expect(plain.constructor).toBe(ApiCallError);
  });

  it("marks 408, 409, 429 and 5xx retryable, other statuses not", () => {
    const retryable = [400, 401, 404, 408, 409, 422, 429, 500, 502, 503, 529].map(
      (status) => [status, ApiCallError.fromResponse({ status, url }).isRetryable] as const,
    );
    expect(retryable).toStrictEqual([
      [400, false],
      [401, false],
      [404, false],
      [408, true],
      [409, true],
      [422, false],
      [429, true],
      [500, true],
      [502, true],
      [503, true],
      [529, true],
    ]);
  });

  it("keeps the request id, log id, body and step, and says where it came from", () => {
    const headers = new Headers({ "cf-aig-log-id": "01JLOG", "cf-aig-request-id": "01JREQ" });
    const error = ApiCallError.fromResponse({
      status: 503,
      url,
      headers,
      responseBody: "x".repeat(10_000),
      detail: "Service Unavailable",
      step,
    });
    expect(error).toMatchObject({ logId: "01JLOG", requestId: "01JREQ", status: 503, url, step });
    expect(error.responseBody).toHaveLength(4_000);
    expect(error.message).toBe(
      "The gateway answered HTTP 503 from step 1 (openai/gpt-4o-mini): Service Unavailable.",
    );
  });

  it("reads Retry-After as seconds, as an HTTP date, and retry-after-ms", () => {
    const now = () => Date.parse("2026-05-01T12:00:00Z");
    const read = (headers: Record<string, string>) => parseRetryAfter(new Headers(headers), now);
    expect(read({ "retry-after": "2" })).toBe(2_000);
    expect(read({ "retry-after": "Fri, 01 May 2026 12:00:05 GMT" })).toBe(5_000);
    expect(read({ "retry-after-ms": "318", "retry-after": "1" })).toBe(318);
    expect(read({ "retry-after": "soon" })).toBeUndefined();
    const limited = ApiCallError.fromResponse({
      status: 429,
      url,
      headers: new Headers({ "retry-after": "7" }),
    }) as RateLimitedError;
    expect(limited.retryAfterMs).toBe(7_000);
    expect(limited.message).toContain("Retry after 7000 ms");
  });
});

describe("the error tree", () => {
  const errors = [
    ApiCallError.fromResponse({ status: 500, url }),
    ApiCallError.fromResponse({ status: 401, url }),
    ApiCallError.fromResponse({ status: 429, url }),
    new NetworkError({ url, cause: new TypeError("fetch failed") }),
    new TimeoutError({ timeoutMs: 1_000, url }),
    new DeadlineExceededError({ deadlineMs: 5_000, attempts: 2 }),
    new AbortedError(),
    new InvalidResponseError({ message: "bad body", url, status: 200 }),
    new IncompleteStreamError({ url, receivedCharacters: 12 }),
    new AllStepsFailedError({ route: "default", steps: [{ ...step, status: 503, error: null }] }),
    new OutputRejectedError({ rejections: [{ ...step, reason: "empty" }] }),
    new UnknownRouteError({ route: "x", knownRoutes: ["default"] }),
    new InvalidOptionsError({ message: "bad" }),
  ];

  it("gives each error a stable code and a retryable flag", () => {
    expect(errors.map((error) => [error.name, error.code, error.isRetryable])).toStrictEqual([
      ["ApiCallError", "api_call_error", true],
      ["AuthenticationError", "authentication_failed", false],
      ["RateLimitedError", "rate_limited", true],
      ["NetworkError", "network_error", true],
      ["TimeoutError", "timeout", true],
      ["DeadlineExceededError", "deadline_exceeded", true],
      ["AbortedError", "aborted", false],
      ["InvalidResponseError", "invalid_response", true],
      ["IncompleteStreamError", "incomplete_stream", true],
      ["AllStepsFailedError", "all_steps_failed", true],
      ["OutputRejectedError", "output_rejected", false],
      ["UnknownRouteError", "unknown_route", false],
      ["InvalidOptionsError", "invalid_options", false],
    ]);
  });

  it("extends GatewayError and StepwiseError", () => {
    for (const error of errors) {
      expect(GatewayError.isInstance(error)).toBe(true);
      expect(StepwiseError.isInstance(error)).toBe(true);
      expect(error).toBeInstanceOf(Error);
    }
    expect(GatewayError.isInstance(new Error("plain"))).toBe(false);
    expect(RateLimitedError.isInstance(errors[0])).toBe(false);
    expect(ApiCallError.isInstance(errors[2])).toBe(true);
  });

  it("recognises errors from another copy of the module", async () => {
    // A query string makes Vite load a second, separate instance of the module.
    const secondCopy = "../../src/client/answer-errors.ts?second-copy";
    const copy = (await import(
      /* @vite-ignore */ secondCopy
    )) as typeof import("../../src/client/answer-errors.ts");
    const foreign = new copy.RateLimitedError({ status: 429, url, retryAfterMs: 1 });
    expect(foreign).not.toBeInstanceOf(RateLimitedError);
    expect(RateLimitedError.isInstance(foreign)).toBe(true);
    expect(ApiCallError.isInstance(foreign)).toBe(true);
    expect(GatewayError.isInstance(foreign)).toBe(true);
    expect(AuthenticationError.isInstance(foreign)).toBe(false);
  });
});
