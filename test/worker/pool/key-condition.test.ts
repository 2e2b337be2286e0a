/**
 * @module
 * Which 429s leave a key out of a pool's plan: only a certain one (a known retry time); a 429
 * without provider timing and a refusal make the key doubtful (tried last, never left out), so a
 * pool of one key is never blocked by them.
 */
import { describe, expect, it } from "vitest";
import { KeyPoolTracker } from "../../../src/worker/pool/key-tracker.ts";

const only = { name: "default", key: "sk-test-only-000001", version: "v1" };
const now = 1_700_000_000_000;
const noQuota = {
  requestsRemaining: null,
  requestsResetAt: null,
  tokensRemaining: null,
  tokensResetAt: null,
};

describe("a pool of one key after a failure", () => {
  it("still sends the key after a 429 without retry-after or reset headers", () => {
    const tracker = new KeyPoolTracker();
    tracker.settle("openai", only, { kind: "answered", status: 429, quota: null }, now);
    expect(tracker.plan("openai", [only], undefined, now + 1)).toEqual({
      keys: [only],
      blocked: null,
    });
  });

  it("still sends the key after a 401 refusal", () => {
    const tracker = new KeyPoolTracker();
    tracker.settle("openai", only, { kind: "answered", status: 401, quota: null }, now);
    expect(tracker.plan("openai", [only], undefined, now + 1).keys).toEqual([only]);
  });

  it("skips the key until retry-after when the 429 says when", () => {
    const tracker = new KeyPoolTracker();
    const quota = { ...noQuota, retryAt: now + 30_000 };
    tracker.settle("openai", only, { kind: "answered", status: 429, quota }, now);
    const plan = tracker.plan("openai", [only], undefined, now + 1);
    expect(plan.keys).toEqual([]);
    expect(plan.blocked?.until).toBe(now + 30_000);
    expect(tracker.plan("openai", [only], undefined, now + 30_001).keys).toEqual([only]);
  });

  it("puts a key throttled without timing after the usable keys", () => {
    const tracker = new KeyPoolTracker();
    const other = { name: "backup", key: "sk-test-backup-000002", version: "v1" };
    tracker.settle("openai", only, { kind: "answered", status: 429, quota: null }, now);
    expect(tracker.plan("openai", [only, other], undefined, now + 1).keys).toEqual([other]);
  });
});
