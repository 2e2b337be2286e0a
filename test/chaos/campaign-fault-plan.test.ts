import { describe, expect, it } from "vitest";
import {
  planFaults,
  plannedEffects,
  streamOnlyKinds,
  unplannedKinds,
} from "../../src/chaos/index.ts";
import {
  FaultPicker,
  type FaultRule,
  faultKinds,
  parseFaultSchedule,
} from "../../src/emulator/mocks/index.ts";

const window = { fromMs: 1_000_000, untilMs: 2_000_000 };
const input = {
  providers: [
    { provider: "anthropic", rate: 0.3 },
    { provider: "openai", rate: 0.2 },
    { provider: "workers-ai", rate: 0.1 },
  ],
  seed: 1,
  ...window,
  slowMs: 200,
  stallMs: 1_000,
};

/** The chance that an attempt gets each rule, given the mock checks rules in order. */
function unconditional(rules: readonly FaultRule[], stream: boolean): number[] {
  let survive = 1;
  return rules.map((rule) => {
    if (!stream && streamOnlyKinds.has(rule.kind)) return 0;
    const chance = survive * (rule.rate ?? 1);
    survive *= 1 - (rule.rate ?? 1);
    return chance;
  });
}

describe("planFaults", () => {
  it("gives the same plan for the same seed and a different one for another seed", () => {
    expect(planFaults(input)).toEqual(planFaults(input));
    const other = planFaults({ ...input, seed: 2 });
    expect(other.schedule.rules).not.toEqual(planFaults(input).schedule.rules);
    expect(other.schedule.seed).toBe(2);
  });

  it("covers every fault kind a campaign call can meet, for every provider, as a valid schedule", () => {
    const plan = planFaults(input);
    for (const { provider } of input.providers) {
      const kinds = plan.schedule.rules
        .filter((rule) => rule.provider === provider)
        .map((rule) => rule.kind);
      // A refused prefill needs a continued stream, which the campaign's calls never send.
      expect([...kinds].sort()).toEqual(
        faultKinds.filter((kind) => !unplannedKinds.has(kind)).sort(),
      );
    }
    expect(() => parseFaultSchedule(plan.schedule)).not.toThrow();
    const byKind = (kind: string) => plan.schedule.rules.find((rule) => rule.kind === kind)!;
    expect(byKind("down")).toMatchObject(window);
    expect(byKind("slow-first-byte").delayMs).toBe(200);
    expect(byKind("stream-stall").delayMs).toBe(1_000);
    expect(byKind("server-error-once").count).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("sets rule rates so each kind's share is exact and the shares add up to the provider's rate", () => {
    const plan = planFaults(input);
    for (const [index, { provider, rate }] of input.providers.entries()) {
      const rules = plan.schedule.rules.filter((rule) => rule.provider === provider);
      const chances = unconditional(rules, true);
      const planned = plan.providers[index]!.kinds.map((kind) => kind.probability);
      for (const [position, chance] of chances.entries()) {
        expect(chance).toBeCloseTo(planned[position]!, 12);
      }
      expect(chances.reduce((sum, chance) => sum + chance, 0)).toBeCloseTo(rate, 12);
      // Every kind gets a real share, not a token one.
      for (const chance of chances)
        expect(chance).toBeGreaterThan((rate / faultKinds.length) * 0.3);
      // Stream-only kinds come last, so plain attempts keep the exact shares of the others.
      expect(streamOnlyKinds.has(rules.at(-1)!.kind)).toBe(true);
    }
  });

  it("injects the planned rate through the mock providers' own fault picker", () => {
    const plan = planFaults(input);
    const picker = new FaultPicker(plan.schedule);
    const counts = { stream: 0, plain: 0, missingDoneOnPlain: 0 };
    const attempts = 20_000;
    for (let index = 0; index < attempts; index++) {
      const stream = index % 2 === 0;
      const rule = picker.pick({
        provider: "anthropic",
        model: null,
        stream,
        prefill: false,
        at: 1_500_000,
      });
      if (rule === undefined) continue;
      counts[stream ? "stream" : "plain"] += 1;
      if (!stream && rule.kind === "missing-done") counts.missingDoneOnPlain += 1;
    }
    const planned = plan.providers[0]!;
    const missingDone = planned.kinds.find((kind) => kind.kind === "missing-done")!.probability;
    expect(counts.stream / (attempts / 2)).toBeCloseTo(0.3, 1);
    expect(counts.plain / (attempts / 2)).toBeCloseTo(0.3 - missingDone, 1);
    expect(counts.missingDoneOnPlain).toBe(0);
  });

  it("sums each provider's planned chances by what the faults do to plain and streamed calls", () => {
    const plan = planFaults(input).providers[0]!;
    const stream = plannedEffects(plan, true);
    const plain = plannedEffects(plan, false);
    expect(stream.fails + stream.breaks + stream.refuses + stream.slows).toBeCloseTo(0.3, 12);
    // Faults that break a stream after its first byte make a plain call fail before answering.
    expect(plain.breaks).toBe(0);
    expect(plain.fails).toBeGreaterThan(stream.fails);
    expect(stream.breaks).toBeGreaterThan(0);
  });
});
