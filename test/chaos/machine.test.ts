/**
 * A campaign sized to its machine: time budgets stretched by the healthy-call baseline, and
 * failed checks that name CPU starvation when the run was starved.
 */
import { describe, expect, it } from "vitest";
import { campaignSettings } from "../../src/chaos/index.ts";
import { scaleFor, scaleSettings } from "../../src/chaos/machine.ts";
import { namingStarvation } from "../../src/chaos/result.ts";
import { starvationVerdict } from "../../src/demo/index.ts";

const quick = campaignSettings({ quick: true });

describe("a campaign sized to the machine", () => {
  it("keeps the defaults on a machine that answers fast", () => {
    expect(scaleFor(quick, { calls: 36, p50Ms: 8, p90Ms: 20 })).toBe(1);
    expect(scaleSettings(quick, 1)).toBe(quick);
  });

  it("stretches every time budget by one factor on a slow machine", () => {
    const scale = scaleFor(quick, { calls: 36, p50Ms: 150, p90Ms: 250 });
    expect(scale).toBe(4);
    const sized = scaleSettings(quick, scale);
    expect(sized).toMatchObject({
      timeoutCapMs: 2_000,
      streamIdleTimeoutMs: 2_000,
      deadlineMs: 12_000,
      tightDeadline: { share: quick.tightDeadline.share, ms: 4_000 },
      deadlineToleranceMs: 1_000,
      calls: quick.calls,
      concurrency: quick.concurrency,
    });
  });
});

describe("failed checks on a starved machine", () => {
  const checks = [
    { name: "every call recorded exactly once", ok: true, detail: "300 calls" },
    { name: "no call runs past its deadline", ok: false, detail: "12 of 300 over" },
  ];
  const machine = (p99Ms: number) => {
    const lag = { p50Ms: 5, p99Ms, maxMs: p99Ms * 2, meanMs: 10 };
    return {
      cores: 2,
      baseline: undefined,
      scale: 1,
      lag,
      starvation: starvationVerdict(lag, 500),
    };
  };

  it("name CPU starvation as the cause, leaving the checks that held alone", () => {
    const named = namingStarvation(checks, machine(400));
    expect(named[0]).toEqual(checks[0]);
    expect(named[1]?.detail).toMatch(
      /^12 of 300 over · the machine was starved for CPU: event-loop lag p99 400 ms · max 800 ms \(step timeouts 500 ms\)/,
    );
  });

  it("are left as they are when the machine kept up", () => {
    expect(namingStarvation(checks, machine(10))).toEqual(checks);
  });
});
