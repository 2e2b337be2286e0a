/**
 * How late the event loop runs, and when that is starvation: the figure the demo and the fault
 * campaign use to name a machine too busy to keep up.
 */
import { describe, expect, it } from "vitest";
import { starvationNote, starvationVerdict, watchEventLoop } from "../../src/demo/index.ts";

describe("event-loop lag", () => {
  it("sees the loop held up by synchronous work", async () => {
    const watch = watchEventLoop(10);
    // Let the monitor take its first samples.
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Hold the loop for 300 ms of CPU time: a starved loop looks like this from the inside.
    const until = performance.now() + 300;
    while (performance.now() < until) {
      // busy
    }
    // The histogram records the delay when its own timer finally fires.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lag = watch.stop();
    expect(lag.maxMs).toBeGreaterThanOrEqual(250);
    expect(lag.maxMs).toBeGreaterThanOrEqual(lag.p99Ms);
  });

  it("calls a run starved when its p99 lag is a fifth of its timeouts, or a stall a whole one", () => {
    const lag = (p99Ms: number, maxMs: number) => ({ p50Ms: 1, p99Ms, maxMs, meanMs: 1 });
    expect(starvationVerdict(lag(20, 80), 500).starved).toBe(false);
    expect(starvationVerdict(lag(100, 150), 500).starved).toBe(true);
    expect(starvationVerdict(lag(20, 500), 500).starved).toBe(true);
    expect(starvationNote(starvationVerdict(lag(20, 80), 500))).toBeUndefined();
    expect(starvationVerdict(lag(20, 80), 500).summary).toBe(
      "event-loop lag p99 20 ms · max 80 ms (step timeouts 500 ms)",
    );
  });
});
