import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  FaultPicker,
  type FaultTarget,
  loadFaultSchedule,
  parseFaultSchedule,
} from "../../../src/emulator/mocks/index.ts";
import { catchAsyncError, catchError } from "./helpers.ts";

const fixtures = path.join(import.meta.dirname, "../../__fixtures__/mocks");

const target = (overrides: Partial<FaultTarget> = {}): FaultTarget => ({
  provider: "openai",
  model: "gpt-4o-mini",
  stream: false,
  prefill: false,
  at: 1_000,
  ...overrides,
});

/** The fault kinds (or null) a plan picks for `count` identical attempts. */
function run(plan: FaultPicker, count: number, overrides: Partial<FaultTarget> = {}) {
  return Array.from({ length: count }, () => plan.pick(target(overrides))?.kind ?? null);
}

describe("FaultPicker", () => {
  it("count limits a rule to that many faulted attempts", () => {
    const plan = new FaultPicker({ rules: [{ kind: "unavailable", count: 2 }] });
    expect(run(plan, 4)).toEqual(["unavailable", "unavailable", null, null]);
  });

  it("rate faults a seeded share of attempts: the same seed gives the same sequence", () => {
    const schedule = { seed: 1234, rules: [{ kind: "unavailable" as const, rate: 0.3 }] };
    const first = run(new FaultPicker(schedule), 200);
    const second = run(new FaultPicker(schedule), 200);
    expect(second).toEqual(first);
    const faulted = first.filter((kind) => kind !== null).length;
    expect(faulted).toBeGreaterThan(40);
    expect(faulted).toBeLessThan(80);
    const otherSeed = run(new FaultPicker({ ...schedule, seed: 99 }), 200);
    expect(otherSeed).not.toEqual(first);
  });

  it("rate 0 never faults and rate 1 always does", () => {
    expect(run(new FaultPicker({ rules: [{ kind: "unavailable", rate: 0 }] }), 20)).not.toContain(
      "unavailable",
    );
    expect(run(new FaultPicker({ rules: [{ kind: "unavailable", rate: 1 }] }), 20)).not.toContain(
      null,
    );
  });

  it("a rule whose roll fails lets the next rule apply", () => {
    const plan = new FaultPicker({
      seed: 5,
      rules: [{ kind: "rate-limit", rate: 0.5 }, { kind: "unavailable" }],
    });
    const kinds = run(plan, 100);
    expect(new Set(kinds)).toEqual(new Set(["rate-limit", "unavailable"]));
  });

  it("count and rate combine: the count is of faulted attempts", () => {
    const kinds = run(
      new FaultPicker({ seed: 3, rules: [{ kind: "unavailable", rate: 0.5, count: 5 }] }),
      100,
    );
    expect(kinds.filter((kind) => kind !== null)).toHaveLength(5);
  });

  it("windows: from is inclusive, until exclusive", () => {
    const plan = new FaultPicker({ rules: [{ kind: "unavailable", fromMs: 100, untilMs: 200 }] });
    expect([99, 100, 199, 200].map((at) => plan.pick(target({ at }))?.kind ?? null)).toEqual([
      null,
      "unavailable",
      "unavailable",
      null,
    ]);
  });

  it("matches provider and model", () => {
    const plan = new FaultPicker({
      rules: [{ kind: "overloaded", provider: "anthropic", model: "claude-opus-4-1" }],
    });
    expect(plan.pick(target())).toBeUndefined();
    expect(plan.pick(target({ provider: "anthropic", model: "claude-haiku-4-5" }))).toBeUndefined();
    expect(plan.pick(target({ provider: "anthropic", model: "claude-opus-4-1" }))?.kind).toBe(
      "overloaded",
    );
  });
});

describe("parseFaultSchedule", () => {
  it("accepts every field and returns the schedule", () => {
    const schedule = {
      seed: 9,
      rules: [
        {
          kind: "rate-limit",
          provider: "custom-acme",
          model: "m",
          rate: 0.5,
          count: 2,
          retryAfterSeconds: 3,
        },
      ],
    };
    expect(parseFaultSchedule(schedule)).toEqual(schedule);
  });

  it("names each bad field", () => {
    const error = catchError(() =>
      parseFaultSchedule(
        {
          rules: [
            { kind: "overloded" },
            { kind: "unavailable", provider: "opanai", count: 0 },
            { kind: "rate-limit", fromMs: 10, untilMs: 5, delayMs: 3 },
          ],
          extra: true,
        },
        { source: "test" },
      ),
    );
    expect(error.code).toBe("fault_schedule_invalid");
    const paths = error.issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "rules[0].kind",
        "rules[1].provider",
        "rules[1].count",
        "rules[2].untilMs",
        "rules[2].delayMs",
        "",
      ]),
    );
    expect(error.message).toMatch(/^test: \d+ problems in the fault schedule/);
    expect(error.message).toContain('unknown fault kind "overloded"');
    expect(error.message).toContain('unknown field "extra"');
  });
});

describe("loadFaultSchedule", () => {
  it("reads a YAML scenario file", async () => {
    const schedule = await loadFaultSchedule("faults.yaml", { cwd: fixtures });
    expect(schedule.seed).toBe(42);
    expect(schedule.rules).toHaveLength(4);
    expect(schedule.rules[1]).toEqual({
      provider: "openai",
      model: "gpt-4o-mini",
      kind: "rate-limit",
      rate: 0.2,
      retryAfterSeconds: 2,
    });
  });

  it("reads a JSON scenario file", async () => {
    const schedule = await loadFaultSchedule(path.join(fixtures, "faults.json"));
    expect(schedule).toEqual({
      rules: [{ provider: "google-ai-studio", kind: "stream-cut", count: 1 }],
    });
  });

  it("reports every bad field with its path and line", async () => {
    const error = await catchAsyncError(() =>
      loadFaultSchedule("faults-invalid.yaml", { cwd: fixtures }),
    );
    expect(error.code).toBe("fault_schedule_invalid");
    expect(error.source).toBe("faults-invalid.yaml");
    expect(error.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: "rules[1].provider",
          line: 5,
          message: expect.stringContaining("opanai"),
        }),
        expect.objectContaining({ path: "rules[2].kind", line: 7 }),
        expect.objectContaining({ path: "rules[3].rate", line: 9 }),
        expect.objectContaining({
          path: "rules[3]",
          line: 8,
          message: expect.stringContaining('"delay" (did you mean "delayMs"?)'),
        }),
        expect.objectContaining({
          path: "rules[4].kind",
          message: expect.stringContaining("fromMs"),
        }),
      ]),
    );
  });

  it("reports YAML syntax errors with a line (the fixture is .txt so the linter skips it)", async () => {
    const error = await catchAsyncError(() =>
      loadFaultSchedule("faults-broken.txt", { cwd: fixtures }),
    );
    expect(error.code).toBe("fault_schedule_unreadable");
    expect(error.issues[0]).toMatchObject({
      line: 2,
      message: expect.stringMatching(/^not valid YAML or JSON/),
    });
  });

  it("reports a missing file", async () => {
    const error = await catchAsyncError(() => loadFaultSchedule("nope.yaml", { cwd: fixtures }));
    expect(error.code).toBe("fault_schedule_not_found");
    expect(error.message).toContain("ENOENT");
  });
});
