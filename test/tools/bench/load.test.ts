/**
 * The load driver: every call is timed by the injected clock, failures are counted (never
 * timed), concurrency is bounded, and interleaved sides alternate A B B A… after a warm-up
 * that is not recorded.
 */
import { describe, expect, it } from "vitest";
import { runInterleaved, runLoad } from "../../../tools/bench/load.ts";

/** A clock the calls advance by hand. */
function manualClock() {
  let time = 0;
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

describe("runLoad", () => {
  it("times each call with the clock and counts failures apart", async () => {
    const clock = manualClock();
    const result = await runLoad(
      async (index) => {
        clock.advance(index + 1);
        if (index === 2) throw new Error("wrong step served");
      },
      { count: 4, now: clock.now },
    );
    expect(result.latencies).toStrictEqual([1, 2, 4]);
    expect(result.failures).toBe(1);
    expect(result.firstFailure).toBe("wrong step served");
    expect(result.elapsedMs).toBe(10);
  });

  it("keeps at most `concurrency` calls in flight and makes exactly `count` calls", async () => {
    let inFlight = 0;
    let most = 0;
    const seen: number[] = [];
    const result = await runLoad(
      async (index) => {
        seen.push(index);
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
      },
      { count: 50, concurrency: 8 },
    );
    expect(most).toBe(8);
    expect(seen.sort((a, b) => a - b)).toStrictEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(result.latencies).toHaveLength(50);
  });
});

describe("runInterleaved", () => {
  it("warms every side up unrecorded, then alternates blocks A B B A A B", async () => {
    const calls: string[] = [];
    const side = (name: string) => async () => {
      calls.push(name);
    };
    const { sides, schedule } = await runInterleaved(
      { a: side("a"), b: side("b") },
      { count: 6, blocks: 3, warmup: 2 },
    );
    expect(schedule).toStrictEqual(["a", "b", "b", "a", "a", "b"]);
    expect(calls).toStrictEqual([
      ...["a", "a", "b", "b"],
      ...["a", "a", "b", "b", "b", "b", "a", "a", "a", "a", "b", "b"],
    ]);
    expect(sides.a.latencies).toHaveLength(6);
    expect(sides.b.latencies).toHaveLength(6);
  });

  it("returns each round's block of every side, for the noise of a section", async () => {
    const { rounds, sides } = await runInterleaved(
      { a: async () => {}, b: async () => {} },
      { count: 7, blocks: 3, warmup: 1 },
    );
    expect(rounds.map((round) => round.a.latencies.length)).toStrictEqual([2, 2, 3]);
    expect(rounds.map((round) => round.b.latencies.length)).toStrictEqual([2, 2, 3]);
    expect(rounds.flatMap((round) => round.a.latencies)).toStrictEqual(sides.a.latencies);
  });

  it("gives the last block the remainder, so each side makes exactly `count` calls", async () => {
    const counts = { a: 0, b: 0 };
    const { sides } = await runInterleaved(
      {
        a: async () => {
          counts.a++;
        },
        b: async () => {
          counts.b++;
        },
      },
      { count: 10, blocks: 3, warmup: 0 },
    );
    expect(counts).toStrictEqual({ a: 10, b: 10 });
    expect(sides.a.latencies).toHaveLength(10);
  });

  it("sums each side's block times and hands block hooks the side's name", async () => {
    const clock = manualClock();
    const hooks: string[] = [];
    const { sides } = await runInterleaved(
      {
        fast: async () => {
          clock.advance(1);
        },
        slow: async () => {
          clock.advance(3);
        },
      },
      {
        count: 4,
        blocks: 2,
        warmup: 1,
        now: clock.now,
        beforeBlock: (name) => {
          hooks.push(`before ${name}`);
        },
        onBlock: (done, total, name) => {
          hooks.push(`${done}/${total} ${name}`);
        },
      },
    );
    expect(sides.fast.elapsedMs).toBe(4);
    expect(sides.slow.elapsedMs).toBe(12);
    expect(sides.slow.latencies).toStrictEqual([3, 3, 3, 3]);
    expect(hooks).toStrictEqual([
      "before fast",
      "1/4 fast",
      "before slow",
      "2/4 slow",
      "before slow",
      "3/4 slow",
      "before fast",
      "4/4 fast",
    ]);
  });
});
