/**
 * fast-check generators of `CallEvent`s that hit every branch of the figures: failed and
 * fallback calls, client errors, unknown tokens/cost/cache status, and times spread over three
 * days from `baseTime`.
 */
import fc from "fast-check";
import type { CallEvent } from "../../src/client/event.ts";

export const baseTime = Date.parse("2026-05-01T00:00:00.000Z");
export const threeDays = 3 * 86_400_000;

export const eventArbitrary: fc.Arbitrary<CallEvent> = fc
  .record({
    offset: fc.integer({ min: 0, max: threeDays - 1 }),
    id: fc.uuid(),
    gateway: fc.constantFrom("chat-prod", "batch-dev"),
    route: fc.constantFrom("default", "fast", "summarise"),
    mode: fc.constantFrom("universal", "dynamic", "rest", "fetch") as fc.Arbitrary<
      CallEvent["mode"]
    >,
    step: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
    provider: fc.option(fc.constantFrom("anthropic", "openai", "groq"), { nil: null }),
    model: fc.option(fc.constantFrom("m-large", "m-small"), { nil: null }),
    status: fc.constantFrom(0, 200, 200, 200, 400, 401, 408, 429, 500, 503),
    validatorRejected: fc.boolean(),
    cacheStatus: fc.constantFrom("HIT", "MISS", null) as fc.Arbitrary<CallEvent["cacheStatus"]>,
    latencyMs: fc.oneof(
      fc.integer({ min: 0, max: 60_000 }),
      fc.double({ min: 0, max: 60_000, noNaN: true, noDefaultInfinity: true }),
    ),
    tokensIn: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }),
    tokensOut: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }),
    cost: fc.option(fc.double({ min: 0, max: 5, noNaN: true, noDefaultInfinity: true }), {
      nil: null,
    }),
  })
  .map(
    (draft): CallEvent => ({
      time: new Date(baseTime + draft.offset).toISOString(),
      id: draft.id,
      gateway: draft.gateway,
      route: draft.route,
      mode: draft.mode,
      step: draft.step,
      provider: draft.provider,
      model: draft.model,
      status: draft.status,
      // A 200 can still fail (the caller's validator rejected every answer).
      ok: draft.status === 200 && !draft.validatorRejected,
      cacheStatus: draft.cacheStatus,
      latencyMs: draft.latencyMs,
      tokensIn: draft.tokensIn,
      tokensOut: draft.tokensOut,
      cost: draft.cost,
      errorCode: draft.status === 200 && !draft.validatorRejected ? null : "all_steps_failed",
      logId: null,
      attempts: 1,
      streamed: false,
    }),
  );

export const eventsArbitrary = fc.array(eventArbitrary, { maxLength: 300 });

/** A non-empty subset of the dimensions, in canonical order. */
export const dimensionsArbitrary = fc
  .subarray(["gateway", "route", "step", "provider", "model"] as const, { minLength: 1 })
  .map((dimensions) => [...dimensions]);

/** An optional window end inside (or just around) the three days. */
export const instantArbitrary = fc.option(
  fc.integer({ min: -3_600_000, max: threeDays + 3_600_000 }).map((offset) => baseTime + offset),
  { nil: null },
);
