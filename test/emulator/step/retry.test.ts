/**
 * A step's retry policy and its backoff (src/emulator/step/retry.ts). The precedence is
 * Cloudflare's, from usage/universal.mdx ("Header configuration hierarchy"): "Provider-level
 * headers override all other configurations. Request-level headers are used if no provider-level
 * headers are set. Gateway-level settings are used only if no headers are configured at the
 * provider or request levels." A step's own `config` (or a dynamic route's model element) is more
 * specific still, and each field is taken on its own from the most specific source that sets it.
 */
import { describe, expect, it } from "vitest";
import { readDirectives, withStepDirectives } from "../../../src/emulator/request/directives.ts";
import {
  backoffDelay,
  type GatewayRetrySettings,
  type RetrySettings,
  stepRetryPolicy,
} from "../../../src/emulator/step/retry.ts";

type Headers = Record<string, string>;

/** The policy for a step, with the headers read as the universal endpoint reads them. */
function policyOf(input: {
  config?: RetrySettings;
  stepHeaders?: Headers;
  requestHeaders?: Headers;
  gateway?: Partial<GatewayRetrySettings>;
}) {
  const requestHeaders = input.requestHeaders ?? {};
  const request = readDirectives((name) => requestHeaders[name]);
  const directives = withStepDirectives(request, input.stepHeaders ?? {}, "step 0");
  const gateway: GatewayRetrySettings = {
    retry_max_attempts: null,
    retry_delay: null,
    retry_backoff: null,
    ...input.gateway,
  };
  return stepRetryPolicy(input.config, directives, gateway);
}

const gateway = { retry_max_attempts: 2, retry_delay: 500, retry_backoff: "linear" } as const;
const request = {
  "cf-aig-max-attempts": "3",
  "cf-aig-retry-delay": "200",
  "cf-aig-backoff": "exponential",
};
const step = { "cf-aig-max-attempts": "4", "cf-aig-retry-delay": "100" };

describe("a step's retry policy", () => {
  it.each([
    ["nothing set: one attempt", {}, { maxAttempts: 1, delayMs: 0, backoff: "constant" }],
    ["gateway settings alone", { gateway }, { maxAttempts: 2, delayMs: 500, backoff: "linear" }],
    [
      "request headers over gateway settings",
      { gateway, requestHeaders: request },
      { maxAttempts: 3, delayMs: 200, backoff: "exponential" },
    ],
    [
      "a step's headers over the request's, field by field",
      { gateway, requestHeaders: request, stepHeaders: step },
      { maxAttempts: 4, delayMs: 100, backoff: "exponential" },
    ],
    [
      "a step's headers over gateway settings, without request headers",
      { gateway, stepHeaders: { "cf-aig-backoff": "constant" } },
      { maxAttempts: 2, delayMs: 500, backoff: "constant" },
    ],
    [
      "the step's config over every header",
      { gateway, requestHeaders: request, stepHeaders: step, config: { maxAttempts: 5 } },
      { maxAttempts: 5, delayMs: 100, backoff: "exponential" },
    ],
    [
      "the step's config over gateway settings",
      { gateway, config: { delayMs: 50, backoff: "exponential" } },
      { maxAttempts: 2, delayMs: 50, backoff: "exponential" },
    ],
    [
      "null gateway settings count as unset",
      { gateway: { retry_max_attempts: null }, requestHeaders: { "cf-aig-retry-delay": "10" } },
      { maxAttempts: 1, delayMs: 10, backoff: "constant" },
    ],
  ] as const)("%s", (_, input, expected) => {
    expect(policyOf(input)).toEqual(expected);
  });

  it("waits at most 5 s however long a gateway's stored retry_delay is", () => {
    // request-handling.mdx: "How long before retrying (in milliseconds, maximum of 5 seconds)";
    // the REST API stores a gateway's retry_delay up to 60000 (the Terraform range).
    const long = { retry_max_attempts: 2, retry_delay: 60_000, retry_backoff: null };
    expect(policyOf({ gateway: long }).delayMs).toBe(5_000);
  });
});

describe("backoff", () => {
  it("computes constant, linear and exponential backoff", () => {
    const delays = (backoff: "constant" | "linear" | "exponential") =>
      [1, 2, 3, 4].map((attempt) =>
        backoffDelay({ maxAttempts: 5, delayMs: 100, backoff }, attempt),
      );
    expect(delays("constant")).toEqual([100, 100, 100, 100]);
    expect(delays("linear")).toEqual([100, 200, 300, 400]);
    expect(delays("exponential")).toEqual([100, 200, 400, 800]);
  });
});
