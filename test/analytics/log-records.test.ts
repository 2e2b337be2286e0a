/**
 * Gateway log records of calls the client re-sent or reordered, read back as the client's own
 * calls (src/analytics/sources/log-records.ts): the gateway numbers each request's steps from 0,
 * and each re-sent or reordered request names its place in the route in the `stepwise` metadata
 * entry (src/wire/attempt-place.ts), so the served record maps to the route's step.
 */
import { describe, expect, it } from "vitest";
import {
  callKeyOf,
  type GatewayLog,
  recordsToCall,
} from "../../src/analytics/sources/log-records.ts";

const t0 = Date.parse("2026-05-01T12:00:00.000Z");

let logs = 0;

function record(overrides: Partial<GatewayLog> & { at?: number; place?: string }): GatewayLog {
  const { at = 0, place, ...rest } = overrides;
  return {
    id: `log-${++logs}`,
    created_at: new Date(t0 + at).toISOString(),
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    duration: 10,
    success: true,
    cached: false,
    status_code: 200,
    tokens_in: 10,
    tokens_out: 5,
    cost: 0.001,
    step: 0,
    metadata: JSON.stringify(
      place === undefined ? { route: "default" } : { route: "default", stepwise: place },
    ),
    event_id: "call-1",
    request_id: `request-${at}`,
    ...rest,
  };
}

describe("a call's records across the client's attempts", () => {
  it("a stream cut on step 0 and rescued by step 1: served by route step 1, the cut apart", () => {
    const call = recordsToCall(
      [
        // Attempt 1: step 0 began streaming (the gateway logged a success), then broke.
        record({ at: 0, duration: 7, cost: 0.0006, tokens_out: 3 }),
        // Attempt 2 re-sent the rest of the chain: its step 0 is the route's step 1.
        record({
          at: 12,
          place: "attempt=2;steps=1.2;elapsed=12",
          provider: "openai",
          model: "gpt-4o-mini",
          duration: 7,
          cost: 0.00075,
        }),
      ],
      "chat-prod",
    );
    expect(call).toMatchObject({
      id: "call-1",
      route: "default",
      step: 1,
      provider: "openai",
      ok: true,
      // The whole call: 12 ms before the second attempt, 7 ms of it.
      latencyMs: 19,
      tokensIn: 10,
      tokensOut: 5,
      cost: 0.00075,
      failedAttemptsCost: 0.0006,
      attempts: 2,
      time: new Date(t0).toISOString(),
    });
    // The place is the join's, not the caller's metadata.
    expect(call.metadata).toEqual({ route: "default" });
  });

  it("a chain an open breaker reordered: the gateway's step 0 is the route's step 1", () => {
    const call = recordsToCall(
      [
        record({
          place: "attempt=1;steps=1.2.0;elapsed=0",
          provider: "openai",
          model: "gpt-4o-mini",
        }),
      ],
      "chat-prod",
    );
    expect(call).toMatchObject({ step: 1, attempts: 1, ok: true });
    expect(call.failedAttemptsCost).toBeUndefined();
  });

  it("a gateway fallback inside a re-sent request maps each record through the place", () => {
    const call = recordsToCall(
      [
        record({ at: 0, success: false, status_code: 400, tokens_in: null, cost: undefined }),
        record({
          at: 5,
          place: "attempt=2;steps=1.2;elapsed=5",
          step: 0,
          success: false,
          status_code: 503,
          provider: "openai",
          cost: undefined,
        }),
        record({
          at: 5,
          place: "attempt=2;steps=1.2;elapsed=5",
          step: 1,
          provider: "workers-ai",
          model: "@cf/meta/llama-3.1-8b-instruct",
          duration: 30,
        }),
      ],
      "chat-prod",
    );
    expect(call).toMatchObject({ step: 2, provider: "workers-ai", latencyMs: 35, attempts: 2 });
    expect(call.failedSteps?.map((failed) => [failed.step, failed.status])).toEqual([
      [0, 400],
      [1, 503],
    ]);
  });

  it("a last attempt that failed is a failed call, whatever an earlier attempt answered", () => {
    const call = recordsToCall(
      [
        // The client's validator rejected this answer; the re-sent rest failed.
        record({ at: 0 }),
        record({
          at: 20,
          place: "attempt=2;steps=1;elapsed=20",
          success: false,
          status_code: 503,
          provider: "openai",
          cost: undefined,
        }),
      ],
      "chat-prod",
    );
    expect(call).toMatchObject({
      ok: false,
      step: null,
      status: 503,
      errorCode: "http_503",
      cost: null,
      tokensIn: null,
      failedAttemptsCost: 0.001,
    });
  });

  it("joins records on the app and the event id, so two apps' ids never merge", () => {
    const mine = record({ metadata: JSON.stringify({ route: "default", app: "app_a" }) });
    const theirs = record({ metadata: JSON.stringify({ route: "default", app: "app_b" }) });
    expect(callKeyOf(mine)).not.toBe(callKeyOf(theirs));
    expect(callKeyOf(record({}))).toBe("call-1");
  });
});
