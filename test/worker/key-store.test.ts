/// <reference types="@cloudflare/vitest-pool-workers/types" />
import { env, reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import {
  KeyStore,
  type KvNamespaceLike,
  keyLayout,
  type StoredKeyMetadata,
} from "../../src/worker/index.ts";
import { describeProvider } from "../../src/worker/key-report.ts";
import { sweepProvider } from "../../src/worker/key-sweep.ts";

afterEach(async () => {
  await reset();
});

const kv = () => env.KEYS as KvNamespaceLike;
const start = Date.parse("2026-03-01T12:00:00Z");

function storeAt(clock: { now: number }, extra: { generateId?: () => string } = {}) {
  return new KeyStore(kv(), {
    now: () => clock.now,
    graceSeconds: 60,
    historySeconds: 3600,
    ...extra,
  });
}

const report = (clock: { now: number }) => ({
  now: clock.now,
  maxAgeDays: 90,
  historySeconds: 3600,
  graceSeconds: 60,
  managedProviders: ["openai"],
});

describe("KeyStore", () => {
  it("rotation makes the new key current and keeps the old one as previous", async () => {
    const clock = { now: start };
    const store = storeAt(clock);
    const first = await store.rotate("openai", { key: "sk-first-000001", label: "test" });
    clock.now += 1000;
    const second = await store.rotate("openai", { key: "sk-second-00002", label: "test" });
    expect(await store.usableKey("openai")).toEqual({
      key: "sk-second-00002",
      version: second.version,
      source: "current",
    });
    expect(await store.pointer("openai")).toEqual({
      version: second.version,
      previous: first.version,
      switchedAt: clock.now,
    });
    const old = await store.metadata("openai", first.version);
    expect(old?.retiredAt).toBe(clock.now);
    expect(first.fingerprint).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(first.fingerprint).not.toBe(second.fingerprint);
  });

  it("falls back to the previous version only during the grace window", async () => {
    const clock = { now: start };
    const store = storeAt(clock);
    const first = await store.rotate("openai", { key: "sk-first-000001", label: "test" });
    const second = await store.rotate("openai", { key: "sk-second-00002", label: "test" });
    // Simulate a location that sees the new pointer but not yet the new version's KV key.
    await kv().delete(keyLayout.version("openai", second.version));
    clock.now += 59_000;
    expect(await store.usableKey("openai")).toEqual({
      key: "sk-first-000001",
      version: first.version,
      source: "previous",
    });
    clock.now += 1_000;
    expect(await store.usableKey("openai")).toBeUndefined();
  });

  it("treats a key past its own expiresAt as unusable", async () => {
    const clock = { now: start };
    const store = storeAt(clock);
    await store.rotate("openai", {
      key: "sk-expiring-001",
      label: "test",
      expiresAt: start + 10_000,
    });
    expect((await store.usableKey("openai"))?.key).toBe("sk-expiring-001");
    clock.now = start + 10_000;
    expect(await store.usableKey("openai")).toBeUndefined();
    const view = await describeProvider(kv(), "openai", report(clock));
    expect(view.current?.flags).toContain("expired");
  });

  it("rollback restores the previous key, and a second rollback undoes it", async () => {
    const clock = { now: start };
    const store = storeAt(clock);
    const first = await store.rotate("openai", { key: "sk-first-000001", label: "test" });
    clock.now += 1000;
    const second = await store.rotate("openai", { key: "sk-second-00002", label: "test" });
    clock.now += 1000;
    await store.rollback("openai");
    expect(await store.usableKey("openai")).toMatchObject({
      key: "sk-first-000001",
      version: first.version,
    });
    expect((await store.metadata("openai", first.version))?.retiredAt).toBeNull();
    expect((await store.metadata("openai", second.version))?.retiredAt).toBe(clock.now);
    await store.rollback("openai");
    expect(await store.usableKey("openai")).toMatchObject({
      key: "sk-second-00002",
      version: second.version,
    });
  });

  it("revoking the current version erases it and falls back to the previous one", async () => {
    const clock = { now: start };
    const store = storeAt(clock);
    const first = await store.rotate("openai", { key: "sk-first-000001", label: "test" });
    const second = await store.rotate("openai", { key: "sk-second-00002", label: "test" });
    await store.revoke("openai", second.version);
    expect(await kv().get(keyLayout.version("openai", second.version), "text")).toBe("");
    expect(await store.usableKey("openai")).toMatchObject({
      key: "sk-first-000001",
      version: first.version,
    });
    await expect(store.revoke("openai", first.version)).rejects.toMatchObject({
      status: 409,
      code: "no_fallback_key",
    });
    await store.revoke("openai", first.version, { force: true });
    expect(await store.usableKey("openai")).toBeUndefined();
    const view = await describeProvider(kv(), "openai", report(clock));
    expect(view.versions.map((version) => version.state)).toEqual(["revoked", "revoked"]);
    expect(view.flags).toEqual(["no-key"]);
  });

  it("50 concurrent rotations keep every version and a pointer to a readable one", async () => {
    const clock = { now: start };
    const store = storeAt(clock);
    await store.rotate("openai", { key: "sk-initial-00000", label: "seed" });
    const keys = Array.from(
      { length: 50 },
      (_, index) => `sk-concurrent-${String(index).padStart(3, "0")}`,
    );
    const written = await Promise.all(
      keys.map((key) => store.rotate("openai", { key, label: "race" })),
    );

    const versions = written.map((metadata) => metadata.version);
    expect(new Set(versions).size).toBe(50);
    const listed = await kv().list<StoredKeyMetadata>({
      prefix: keyLayout.versionPrefix("openai"),
    });
    expect(listed.keys).toHaveLength(51);
    expect(listed.keys.map((entry) => entry.metadata?.version).sort()).toEqual(
      listed.keys.map((entry) => entry.name.split(":")[2]).sort(),
    );

    const pointer = await store.pointer("openai");
    expect(versions).toContain(pointer?.version);
    const usable = await store.usableKey("openai");
    expect(usable?.source).toBe("current");
    expect(keys).toContain(usable?.key);
    // The pointer's key and version agree: the key stored under it is the one rotated with it.
    expect(usable?.key).toBe(keys[versions.indexOf(pointer!.version)]);

    // The sweep gives every version that lost the race a history expiry; none is lost.
    const swept = await sweepProvider(kv(), store, "openai");
    expect(swept.removed).toEqual([]);
    const view = await describeProvider(kv(), "openai", report(clock));
    expect(view.versions).toHaveLength(51);
    expect(view.versions.filter((version) => version.state === "current")).toHaveLength(1);
    const history = view.versions.filter(
      (version) => version.state === "history" || version.state === "previous",
    );
    expect(history).toHaveLength(50);
    expect(history.every((version) => version.retiredAt !== null)).toBe(true);
  });

  it("the sweep removes history past the window by the injected clock, never the current key", async () => {
    const clock = { now: start };
    const store = storeAt(clock);
    const first = await store.rotate("openai", { key: "sk-first-000001", label: "test" });
    clock.now += 1000;
    const second = await store.rotate("openai", { key: "sk-second-00002", label: "test" });
    clock.now += 3_599_000;
    expect((await sweepProvider(kv(), store, "openai")).removed).toEqual([]);
    clock.now += 1000;
    expect((await sweepProvider(kv(), store, "openai")).removed).toEqual([first.version]);
    clock.now += 365 * 86_400_000;
    expect((await sweepProvider(kv(), store, "openai")).removed).toEqual([]);
    expect(await store.usableKey("openai")).toMatchObject({ version: second.version });
  });

  it("rejects a generateId that would make a bad version id", async () => {
    const store = storeAt({ now: start }, { generateId: () => "Not/Valid" });
    await expect(
      store.rotate("openai", { key: "sk-first-000001", label: "x" }),
    ).rejects.toMatchObject({ code: "invalid_option" });
  });
});
