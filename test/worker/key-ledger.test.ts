/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * The ledger core on its own: the lifecycle rules (rotation, rollback, revocation, expiry,
 * sweep), serialised operations, and write-through to a KV with Cloudflare's limits (one write
 * per second per key, failures), including recovery from the durable outbox.
 */
import { describe, expect, it } from "vitest";
import {
  type EdgePoolKey,
  type EdgePoolRecord,
  KeyLedgerCore,
  type KvNamespaceLike,
  keyLayout,
  kvEdgeTarget,
  type LedgerAnswer,
} from "../../src/worker/index.ts";
import { MemoryStorage, TestAlarm } from "./durable-object-doubles.ts";
import { KvDouble } from "./kv-double.ts";

const start = Date.parse("2026-03-01T12:00:00Z");

function setUp(
  options: { kv?: (double: KvDouble) => KvNamespaceLike; generateId?: () => string } = {},
) {
  const clock = { now: start };
  const kv = new KvDouble({ now: () => clock.now });
  const storage = new MemoryStorage();
  const alarm = new TestAlarm();
  const make = () =>
    new KeyLedgerCore({
      storage,
      targets: [kvEdgeTarget(options.kv?.(kv) ?? kv.at("home"))],
      wakeAt: alarm.set,
      now: () => clock.now,
      ...(options.generateId === undefined ? {} : { generateId: options.generateId }),
    });
  const ledger = make();
  /** The pool's `default` key at the edge. */
  const edge = (provider: string): EdgePoolKey | null => {
    const text = kv.peek("home", keyLayout.current(provider));
    if (text === null) return null;
    return (JSON.parse(text) as EdgePoolRecord).keys.find((key) => key.name === "default") ?? null;
  };
  const advance = async (ms: number, core = ledger) => {
    clock.now += ms;
    await alarm.fireDue(clock.now, () => core.runAlarm());
  };
  return { clock, kv, storage, alarm, ledger, make, edge, advance };
}

function value<Value>(answer: LedgerAnswer<Value>): Value {
  if (!answer.ok) throw new Error(`refused: ${answer.refusal.code}`);
  return answer.value;
}

const rotation = (key: string) => ({ key, expiresAt: null, label: "test" });

describe("KeyLedgerCore: lifecycle", () => {
  it("a rotation makes the new key current, the old one previous, and writes the edge record", async () => {
    const { ledger, edge, advance } = setUp();
    const first = value(await ledger.rotate("openai", "default", rotation("sk-first-000001")));
    await advance(1000);
    const answer = await ledger.rotate("openai", "default", rotation("sk-second-00002"));
    const second = value(answer);
    expect(second.state.keys[0]!.pointer).toMatchObject({
      current: second.version.version,
      previous: first.version.version,
    });
    expect(
      second.state.keys[0]!.versions.find((v) => v.version === first.version.version)?.retiredAt,
    ).toBe(start + 1000);
    expect(answer.ok && answer.propagation).toMatchObject({
      written: true,
      visibleEverywhereBy: start + 1000 + 60_000,
    });
    expect(edge("openai")).toMatchObject({
      version: second.version.version,
      key: "sk-second-00002",
    });
    expect(JSON.stringify(second)).not.toContain("sk-");
  });

  it("rollback restores the previous key and a second rollback undoes it", async () => {
    const { ledger, edge, advance } = setUp();
    const first = value(await ledger.rotate("openai", "default", rotation("sk-first-000001")));
    await advance(1000);
    const second = value(await ledger.rotate("openai", "default", rotation("sk-second-00002")));
    await advance(1000);
    const back = value(await ledger.rollback("openai", "default", null));
    expect(back.keys[0]?.pointer?.current).toBe(first.version.version);
    expect(
      back.keys[0]!.versions.find((v) => v.version === first.version.version)?.retiredAt,
    ).toBeNull();
    expect(edge("openai")?.key).toBe("sk-first-000001");
    await advance(1000);
    expect(value(await ledger.rollback("openai", "default", null)).keys[0]?.pointer?.current).toBe(
      second.version.version,
    );
    expect(edge("openai")?.key).toBe("sk-second-00002");
  });

  it("revoking erases the value; revoking current falls back, or needs force", async () => {
    const { ledger, storage, edge, advance } = setUp();
    const first = value(await ledger.rotate("openai", "default", rotation("sk-first-000001")));
    await advance(1000);
    const second = value(await ledger.rotate("openai", "default", rotation("sk-second-00002")));
    await advance(1000);
    const revoked = value(await ledger.revoke("openai", "default", second.version.version, false));
    expect(revoked.keys[0]?.pointer?.current).toBe(first.version.version);
    expect(edge("openai")?.key).toBe("sk-first-000001");
    const stored = await storage.list<{ key: string | null }>({ prefix: "version:openai:" });
    expect([...stored.values()].map((entry) => entry.key)).toEqual(["sk-first-000001", null]);
    const refused = await ledger.revoke("openai", "default", first.version.version, false);
    expect(refused.ok || refused.refusal).toMatchObject({ status: 409, code: "no_fallback_key" });
    await advance(1000);
    value(await ledger.revoke("openai", "default", first.version.version, true));
    expect(edge("openai")).toBeNull();
    const again = await ledger.revoke("openai", "default", first.version.version, true);
    expect(again.ok || again.refusal.code).toBe("unknown_version");
    const none = await ledger.rollback("openai", "default", first.version.version);
    expect(none.ok || none.refusal.code).toBe("unknown_version");
  });

  it("an expired key is not rolled back to, and the edge record carries its expiry", async () => {
    const { ledger, edge, clock, advance } = setUp();
    const old = value(
      await ledger.rotate("openai", "default", {
        key: "sk-expiring-0001",
        expiresAt: start + 5000,
        label: "x",
      }),
    );
    expect(edge("openai")?.expiresAt).toBe(start + 5000);
    await advance(1000);
    await ledger.rotate("openai", "default", rotation("sk-fresh-000002"));
    clock.now = start + 5000;
    const refused = await ledger.rollback("openai", "default", old.version.version);
    expect(refused.ok || refused.refusal.code).toBe("key_expired");
  });

  it("50 concurrent rotations run one after another: every version kept, the last one current", async () => {
    const { ledger, edge, advance } = setUp();
    const keys = Array.from({ length: 50 }, (_, index) => `sk-concurrent-${100 + index}`);
    const answers = await Promise.all(
      keys.map((key) => ledger.rotate("openai", "default", rotation(key))),
    );
    const committed = answers.map((answer) => {
      if (!answer.ok) throw new Error("refused");
      return answer;
    });
    expect(committed.map((answer) => answer.revision)).toEqual(
      Array.from({ length: 50 }, (_, index) => index + 1),
    );
    const state = await ledger.provider("openai");
    expect(state.keys[0]!.versions).toHaveLength(50);
    const last = committed.at(-1)!.value.version.version;
    expect(state.keys[0]?.pointer?.current).toBe(last);
    // KV takes one write per second per key: the first went at once, the last one follows.
    expect(committed[0]!.propagation.written).toBe(true);
    expect(committed.at(-1)!.propagation).toMatchObject({
      written: false,
      visibleEverywhereBy: null,
    });
    await advance(1000);
    expect(edge("openai")?.key).toBe(keys.at(-1));
  });

  it("the sweep removes history past the window by the ledger's clock, never the current key", async () => {
    const { ledger, advance } = setUp();
    const first = value(await ledger.rotate("openai", "default", rotation("sk-first-000001")));
    await advance(1000);
    const second = value(await ledger.rotate("openai", "default", rotation("sk-second-00002")));
    await advance(3_599_000);
    expect(await ledger.sweep(3600)).toEqual([
      { provider: "openai", name: "default", removed: [] },
    ]);
    await advance(1000);
    expect(await ledger.sweep(3600)).toEqual([
      { provider: "openai", name: "default", removed: [first.version.version] },
    ]);
    const state = await ledger.provider("openai");
    expect(state.keys[0]?.pointer).toMatchObject({
      current: second.version.version,
      previous: null,
    });
    await advance(365 * 86_400_000);
    expect(await ledger.sweep(3600)).toEqual([
      { provider: "openai", name: "default", removed: [] },
    ]);
  });

  it("refuses a generateId that would make a bad version id", async () => {
    const { ledger } = setUp({ generateId: () => "Not/Valid" });
    await expect(
      ledger.rotate("openai", "default", rotation("sk-first-000001")),
    ).rejects.toMatchObject({
      code: "invalid_option",
    });
  });

  it("app tokens: created, listed oldest first, revoked; the edge record follows", async () => {
    const { ledger, kv, advance } = setUp();
    const app = {
      id: "0123456789ab",
      name: "checkout",
      rateLimit: null,
      tokenSha256: "ab".repeat(32),
    };
    value(await ledger.createApp(app));
    await advance(1000);
    value(await ledger.createApp({ ...app, id: "ba9876543210", name: "search" }));
    expect((await ledger.apps()).map((entry) => entry.name)).toEqual(["checkout", "search"]);
    expect(JSON.parse(kv.peek("home", "app:0123456789ab")!)).toMatchObject({ name: "checkout" });
    await advance(1000);
    value(await ledger.revokeApp("0123456789ab"));
    expect(kv.peek("home", "app:0123456789ab")).toBeNull();
    const missing = await ledger.revokeApp("0123456789ab");
    expect(missing.ok || missing.refusal).toMatchObject({ status: 404, code: "unknown_app" });
  });
});

describe("KeyLedgerCore: write-through", () => {
  it("a write KV refuses (one write per second per key) is retried; the edge ends on the last commit", async () => {
    const { ledger, kv, edge, advance } = setUp();
    for (let index = 0; index < 5; index++) {
      await ledger.rotate("openai", "default", rotation(`sk-burst-0000${index}`));
      await advance(200);
    }
    await advance(1000);
    const attempts = kv.attempts.filter((attempt) => attempt.key === "current:openai");
    expect(attempts.some((attempt) => !attempt.accepted)).toBe(true);
    const writes = attempts.filter((attempt) => attempt.accepted);
    for (let index = 1; index < writes.length; index++) {
      expect(writes[index]!.at - writes[index - 1]!.at).toBeGreaterThanOrEqual(1000);
    }
    expect(edge("openai")?.key).toBe("sk-burst-00004");
  });

  it("a failed KV write is retried by the alarm until it lands", async () => {
    let failures = 2;
    const { ledger, edge, advance } = setUp({
      kv: (double) => {
        const home = double.at("home");
        return {
          ...home,
          put: async (...args: Parameters<KvNamespaceLike["put"]>) => {
            if (failures-- > 0) throw new Error("KV PUT failed: 500 Internal Server Error");
            return home.put(...args);
          },
        };
      },
    });
    const answer = await ledger.rotate("openai", "default", rotation("sk-retried-000001"));
    expect(answer.ok && answer.propagation.written).toBe(false);
    expect(edge("openai")).toBeNull();
    await advance(1000);
    expect(edge("openai")).toBeNull();
    await advance(2000);
    expect(edge("openai")?.key).toBe("sk-retried-000001");
  });

  it("edge writes still owed survive a restart of the object (the outbox is stored)", async () => {
    const { ledger, make, edge, advance } = setUp();
    await ledger.rotate("openai", "default", rotation("sk-before-000001"));
    await ledger.rotate("openai", "default", rotation("sk-after-0000002"));
    expect(edge("openai")?.key).toBe("sk-before-000001");
    // The object restarts: a new core on the same storage, woken by the stored alarm.
    const restarted = make();
    await advance(1000, restarted);
    expect(edge("openai")?.key).toBe("sk-after-0000002");
  });
});
