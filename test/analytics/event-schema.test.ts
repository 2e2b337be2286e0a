import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import { type callEventSchema, parseEventLine } from "../../src/analytics/event-schema.ts";
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
    for (const event of generateEvents({ count: 50, seed: 11 })) {
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
