/**
 * The demo says why calls fail: traffic beyond the gateway's rate limit is named before the run,
 * and each failed call's error code after it, with starvation named when the machine was
 * starved for CPU.
 */
import { describe, expect, it } from "vitest";
import {
  callsPerWindow,
  explainFailures,
  rateLimitWarning,
  starvationVerdict,
} from "../../src/demo/index.ts";

const devGateway = {
  id: "chat-prod",
  rateLimit: { limit: 600, interval: 60, technique: "sliding" as const },
};
const idle = starvationVerdict({ p50Ms: 1, p99Ms: 8, maxMs: 30, meanMs: 2 }, 1_000);
const starved = starvationVerdict({ p50Ms: 120, p99Ms: 450, maxMs: 1_900, meanMs: 150 }, 1_000);

describe("the demo's rate-limit warning", () => {
  it("counts the calls a run puts into one window", () => {
    expect(callsPerWindow(1_000, 100, 60)).toBe(1_000);
    expect(callsPerWindow(1_000, 10, 60)).toBe(600);
    expect(callsPerWindow(300, 30, 60)).toBe(300);
  });

  it("warns when the calls exceed the gateway's limit, with how many and what to change", () => {
    expect(rateLimitWarning(devGateway, 1_000, 100)).toBe(
      "1000 calls at 100/s put up to 1000 calls in one 60 s window, but gateway chat-prod allows 600 (its rateLimit): about 400 will be answered 429 rate_limited. Send at most 600 calls (--calls), or at most 10/s (--rate), or raise rateLimit in the config.",
    );
  });

  it("stays quiet for traffic that fits, and for a gateway without a limit", () => {
    expect(rateLimitWarning(devGateway, 300, 30)).toBeUndefined();
    expect(rateLimitWarning(devGateway, 500, 50)).toBeUndefined();
    expect(rateLimitWarning({ id: "open" }, 100_000, 1_000)).toBeUndefined();
  });
});

describe("the demo's failed calls, explained", () => {
  it("names the rate limit for 429s and the faults for failed chains, most frequent first", () => {
    expect(
      explainFailures(
        new Map([
          ["all_steps_failed", 3],
          ["rate_limited", 400],
        ]),
        idle,
      ),
    ).toEqual([
      "400 rate_limited — 429: a rate limit refused them (the gateway's rateLimit or the app's limit)",
      "3 all_steps_failed — every step of the route failed (the scenario's faults)",
    ]);
  });

  it("blames timeouts on a starved machine when it was starved, on the faults when not", () => {
    const failures = new Map([["deadline_exceeded", 12]]);
    expect(explainFailures(failures, starved)[0]).toMatch(
      /^12 deadline_exceeded — the machine was starved for CPU: event-loop lag p99 450 ms · max 1,900 ms \(step timeouts 1,000 ms\)\. Calls ran out of time because this process waited for a core, not because of the providers or the keys/,
    );
    expect(explainFailures(failures, idle)[0]).toBe(
      "12 deadline_exceeded — they ran out of time: the scenario's hangs outlasted the call's deadline",
    );
  });
});
