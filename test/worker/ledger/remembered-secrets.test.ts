/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * The ledger keeps every value it has held known to the scrubber while an answer the gateway
 * cached may still carry it (issue #23): AI Gateway's cache TTL goes up to 30 days ("cf-aig-cache-ttl
 * ... minimum 60 seconds, maximum one month" in the caching docs, 2,592,000 s in the schema), so a
 * value erased by a revocation, or swept with its history, is listed at the edge (`retired` of
 * `current:{provider}`) until 30 days after its version ended, and never injected again.
 */
import { describe, expect, it } from "vitest";
import {
  type EdgePoolRecord,
  KeyLedgerCore,
  keyLayout,
  kvEdgeTarget,
  type LedgerAnswer,
} from "../../../src/worker/index.ts";
import { MemoryStorage, TestAlarm } from "../durable-object-doubles.ts";
import { KvDouble } from "../kv-double.ts";

const start = Date.parse("2026-03-01T12:00:00Z");
const day = 86_400_000;

function setUp() {
  const clock = { now: start };
  const kv = new KvDouble({ now: () => clock.now });
  const storage = new MemoryStorage();
  const alarm = new TestAlarm();
  const ledger = new KeyLedgerCore({
    storage,
    targets: [kvEdgeTarget(kv.at("home"))],
    wakeAt: alarm.set,
    now: () => clock.now,
  });
  const record = (provider: string): EdgePoolRecord | null => {
    const text = kv.peek("home", keyLayout.current(provider));
    return text === null ? null : (JSON.parse(text) as EdgePoolRecord);
  };
  const advance = async (ms: number) => {
    clock.now += ms;
    await alarm.fireDue(clock.now, () => ledger.runAlarm());
  };
  return { ledger, storage, record, advance };
}

function value<Value>(answer: LedgerAnswer<Value>): Value {
  if (!answer.ok) throw new Error(`refused: ${answer.refusal.code}`);
  return answer.value;
}

const rotation = (key: string) => ({ key, expiresAt: null, label: "test" });

describe("values the ledger has held stay known to the scrubber for the cache's lifetime", () => {
  it("previous, history and revoked values are listed as retired, never as keys to inject", async () => {
    const { ledger, record, advance } = setUp();
    const first = value(await ledger.rotate("openai", "default", rotation("sk-first-000001")));
    await advance(1000);
    value(await ledger.rotate("openai", "default", rotation("sk-second-00002")));
    expect(record("openai")).toMatchObject({
      keys: [{ key: "sk-second-00002" }],
      retired: ["sk-first-000001"],
    });
    await advance(1000);
    const third = value(await ledger.rotate("openai", "default", rotation("sk-third-000003")));
    await advance(1000);
    // The current key revoked: the ledger falls back to the previous one and erases the value.
    value(await ledger.revoke("openai", "default", third.version.version, false));
    value(await ledger.revoke("openai", "default", first.version.version, false));
    await advance(1000);
    const edge = record("openai")!;
    expect(edge.keys.map((key) => key.key)).toEqual(["sk-second-00002"]);
    expect(edge.retired).toEqual(["sk-first-000001", "sk-third-000003"]);
  });

  it("a pool with every key revoked keeps its record for the scrubber, with nothing to inject", async () => {
    const { ledger, record, advance } = setUp();
    const only = value(await ledger.rotate("openai", "default", rotation("sk-only-0000001")));
    await advance(1000);
    value(await ledger.revoke("openai", "default", only.version.version, true));
    expect(record("openai")).toEqual({ keys: [], retired: ["sk-only-0000001"] });
    await advance(1000);
    value(await ledger.rotate("openai", "spare", rotation("sk-spare-000001")));
    await advance(1000);
    value(await ledger.removeKey("openai", "spare"));
    expect(record("openai")).toEqual({ keys: [], retired: ["sk-only-0000001", "sk-spare-000001"] });
  });

  it("a value swept with its history is still listed, and forgotten 30 days after it ended", async () => {
    const { ledger, storage, record, advance } = setUp();
    value(await ledger.rotate("openai", "default", rotation("sk-first-000001")));
    await advance(1000);
    const second = value(await ledger.rotate("openai", "default", rotation("sk-second-00002")));
    const retiredAt = start + 1000;
    await advance(3_600_000);
    const [swept] = await ledger.sweep(3600);
    expect(swept?.removed).toHaveLength(1);
    const versions = await storage.list({ prefix: "version:openai:" });
    expect([...versions.keys()]).toEqual([`version:openai:default:${second.version.version}`]);
    expect(record("openai")?.retired).toEqual(["sk-first-000001"]);
    await advance(retiredAt + 30 * day - 1 - (start + 1000 + 3_600_000));
    await ledger.sweep(3600);
    expect(record("openai")?.retired).toEqual(["sk-first-000001"]);
    await advance(1);
    await ledger.sweep(3600);
    expect(record("openai")).toEqual({
      keys: [expect.objectContaining({ key: "sk-second-00002" })],
    });
    expect([...(await storage.list({ prefix: "remembered:" })).keys()]).toEqual([]);
  });

  it("a revoked value is forgotten 30 days after its revocation, not after its rotation", async () => {
    const { ledger, record, advance } = setUp();
    value(await ledger.rotate("openai", "default", rotation("sk-first-000001")));
    await advance(1000);
    value(await ledger.rotate("openai", "default", rotation("sk-second-00002")));
    await advance(10 * day);
    const state = await ledger.provider("openai");
    const firstVersion = state.keys[0]!.versions[0]!.version;
    // Retired ten days ago, revoked now: a cached answer may hold it for 30 more days.
    value(await ledger.revoke("openai", "default", firstVersion, false));
    await advance(30 * day - 1);
    await ledger.sweep(3600);
    expect(record("openai")?.retired).toEqual(["sk-first-000001"]);
    await advance(1);
    await ledger.sweep(3600);
    expect(record("openai")?.retired).toBeUndefined();
  });
});
