import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import {
  callEventSchema,
  parseEventLine,
  parseEventValue,
} from "../../src/analytics/event-schema.ts";
import type { CallEvent } from "../../src/client/event.ts";
import { generateEvents } from "../../tools/scripts/generate-events.ts";

describe("callEventSchema", () => {
  it("reads exactly the CallEvent type", () => {
    type Schema = ReturnType<typeof callEventSchema>;
    expectTypeOf<z.infer<Schema>>().toEqualTypeOf<CallEvent>();
    expectTypeOf<CallEvent>().toExtend<z.infer<Schema>>();
    expectTypeOf<z.infer<Schema>>().toExtend<CallEvent>();
  });

  it("round-trips events as the client writes them", () => {
    for (const event of generateEvents({ count: 50, seed: 17 })) {
      expect(parseEventLine(JSON.stringify(event))).toEqual({ ok: true, event });
    }
  });

  it("fills the fields reduced records may omit and drops unknown ones", () => {
    const parsed = parseEventLine(
      JSON.stringify({
        time: "2026-05-01T00:00:00Z",
        id: "w-1",
        gateway: "chat-prod",
        route: "default",
        mode: "fetch",
        step: 1,
        provider: "openai",
        model: "gpt-4o-mini",
        status: 200,
        ok: true,
        latencyMs: 12.5,
        extra: "ignored",
      }),
    );
    expect(parsed).toEqual({
      ok: true,
      event: expect.objectContaining({
        cacheStatus: null,
        tokensIn: null,
        cost: null,
        errorCode: null,
        logId: null,
        attempts: 1,
        streamed: false,
      }),
    });
    expect(parsed.ok && "extra" in parsed.event).toBe(false);
  });

  it("says which field is wrong, and never throws", () => {
    expect(parseEventLine("{not json")).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^not JSON/),
    });
    expect(parseEventLine("[]")).toMatchObject({ ok: false });
    const bad = { ...[...generateEvents({ count: 1 })][0], latencyMs: -1, time: "soon" };
    const result = parseEventLine(JSON.stringify(bad));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(
      /time: time must be an ISO-8601 date-time.*latencyMs/,
    );
  });
});

describe("the fast event check", () => {
  const valid = [...generateEvents({ count: 5, seed: 17 })];
  const odd = [
    undefined,
    null,
    -1,
    0,
    1.5,
    999,
    1000,
    1e11,
    Number.MAX_SAFE_INTEGER,
    "",
    "x",
    "HIT",
    "MISS",
    "fetch",
    "2026-05-01T00:00:00.000Z",
    "2026-02-30T00:00:00.000Z",
    "2026-05-01T24:00:00.000Z",
    "2026-05-01",
    "+275760-09-13T00:00:00.000Z",
    "1999-12-31T23:59:59.999Z",
    "2199-12-31T23:59:59.999Z",
    "2200-01-01T00:00:00.000Z",
    "n".repeat(257),
    true,
    [],
    [1, 2],
    [-1],
    {},
    { plan: "free", seats: 3, beta: true },
    { plan: { nested: 1 } },
    { ["k".repeat(257)]: "x" },
    Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`key${index}`, index])),
    { chain: "frontier", rule: 2, budget: "over" },
    { chain: "default", rule: null },
    { chain: "", rule: 0 },
    { chain: "economy", rule: 1, budget: "spent" },
    { chain: "economy", rule: 1.5 },
    { chain: "economy", rule: 0, extra: true },
    [
      {
        step: 0,
        provider: "openai",
        model: "gpt-4o-mini",
        status: 503,
        errorCode: null,
        at: "request",
      },
    ],
    [{ step: 1, provider: "openai", model: "m", status: null, errorCode: "x", at: "mid-stream" }],
    [{ step: 0, provider: "openai", model: "m", status: 200, errorCode: null, at: "later" }],
    [{ step: -1, provider: "openai", model: "m", status: 200, errorCode: null, at: "answer" }],
    // skippedSteps / demotedSteps entries, and hedges.
    [{ step: 0, provider: "anthropic", model: "claude-sonnet-4-5", reason: "rpm_cap" }],
    [{ step: 2, provider: "openai", model: "m", reason: 7 }],
    [
      {
        step: 1,
        provider: "openai",
        model: "gpt-4o-mini",
        afterMs: 2000,
        sent: true,
        kept: "hedge",
        extraCost: 0.00003,
      },
    ],
    [
      {
        step: 1,
        provider: "openai",
        model: "m",
        afterMs: 2000,
        sent: false,
        reason: "cost_cap",
        kept: "primary",
        extraCost: 0,
      },
    ],
    [
      {
        step: 1,
        provider: "openai",
        model: "m",
        afterMs: 5,
        sent: true,
        kept: "both",
        extraCost: 0,
      },
    ],
    [{ step: 1, provider: "openai", model: "m", afterMs: 5, sent: 1, kept: "none", extraCost: -1 }],
  ];
  const fields = [
    ...Object.keys(valid[0] as object),
    "rejectedSteps",
    "metadata",
    "policy",
    "failedSteps",
    "discardedChars",
    "skippedSteps",
    "demotedSteps",
    "hedges",
    "extra",
  ];

  it("accepts exactly what the zod schema accepts, with the same result", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: valid.length - 1 }),
        fc.array(fc.tuple(fc.constantFrom(...fields), fc.constantFrom(...odd)), { maxLength: 3 }),
        (index, changes) => {
          const record: Record<string, unknown> = { ...valid[index] };
          for (const [field, value] of changes) {
            if (value === undefined) delete record[field];
            else record[field] = value;
          }
          const expected = callEventSchema().safeParse(record);
          const actual = parseEventValue(record);
          expect(actual.ok).toBe(expected.success);
          if (actual.ok && expected.success) expect(actual.event).toEqual(expected.data);
        },
      ),
      { numRuns: 3_000, seed: 17 },
    );
  });
});
