/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * Key lifecycle on Cloudflare's consistency: two Worker locations share one lagging,
 * write-limited KV (test/worker/kv-double.ts). Revocations, rotations and rollbacks race; the
 * revoked key must never come back, and what the admin API answered must be what was committed.
 */
import { describe, expect, it } from "vitest";
import { accountId, createHarness, type Harness } from "./harness.ts";

const propagation = 60_000;

/** Lets every write reach every location (and any pending write-through finish). */
async function settle(harness: Harness): Promise<void> {
  for (let second = 0; second < 5; second++) await harness.advance(1_000);
  await harness.advance(propagation + 1_000);
}

async function sentKey(harness: Harness, location: string, token: string): Promise<string> {
  const before = harness.gatewayCalls.length;
  const response = await harness.at(location)("POST", `/v1/${accountId}/chat/openai/models`, {
    token,
    body: {},
  });
  expect(response.status, response.text).toBeLessThan(500);
  expect(harness.gatewayCalls.length).toBe(before + 1);
  return harness.gatewayCalls.at(-1)!.headers.authorization?.replace(/^Bearer /, "") ?? "";
}

describe("key lifecycle across locations", () => {
  it("a revoke at one location is never undone by a rotation or rollback at another", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    const keyZ = "sk-openai-zulu-000001";
    const keyA = "sk-openai-alpha-00002";
    const keyB = "sk-openai-bravo-00003";
    await harness.rotate("openai", keyZ);
    await harness.advance(2_000);
    const versionA = (await harness.rotate("openai", keyA)).version;
    await settle(harness);

    const revoked = await harness.at("edge-a")("DELETE", `/keys/openai/${versionA}`);
    expect(revoked.status, revoked.text).toBe(200);
    await harness.advance(10_000);
    const rotated = await harness.at("edge-b")("PUT", "/keys/openai", { body: { key: keyB } });
    expect(rotated.status, rotated.text).toBe(201);
    await harness.advance(2_000);
    const rolledBack = await harness.at("edge-b")("POST", "/keys/openai/rollback");
    expect(rolledBack.status, rolledBack.text).toBe(200);
    await settle(harness);

    for (const location of ["edge-a", "edge-b"]) {
      const view = (await harness.at(location)("GET", "/keys/openai")).json();
      const a = view.versions.find((version: { version: string }) => version.version === versionA);
      expect(a?.state, location).toBe("revoked");
      expect(view.current.version).not.toBe(versionA);
      expect(await sentKey(harness, location, app.token)).toBe(keyZ);
    }
    expect(harness.gatewayCalls.map((call) => JSON.stringify(call)).join()).not.toContain(
      `"authorization":"Bearer ${keyA}"`,
    );
  });

  it("a rollback racing a rotation: every answer is what was committed, and the last one wins", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-first-000001");
    await harness.advance(2_000);
    await harness.rotate("openai", "sk-openai-second-00002");
    await settle(harness);

    const [rotated, rolledBack] = await Promise.all([
      harness.at("edge-a")("PUT", "/keys/openai", { body: { key: "sk-openai-third-000003" } }),
      harness.at("edge-b")("POST", "/keys/openai/rollback"),
    ]);
    expect(rotated.status, rotated.text).toBe(201);
    expect(rolledBack.status, rolledBack.text).toBe(200);
    const rotation = rotated.json();
    const rollback = rolledBack.json();
    expect(rotation.revision).not.toBe(rollback.revision);
    await settle(harness);

    const last = rotation.revision > rollback.revision ? "rotation" : "rollback";
    for (const location of ["edge-a", "edge-b"]) {
      const view = (await harness.at(location)("GET", "/keys/openai")).json();
      expect(view.revision).toBe(Math.max(rotation.revision, rollback.revision));
      expect(view.current.version).toBe(
        last === "rotation" ? rotation.version : rollback.current.version,
      );
    }
  });

  it("20 parallel rotations leave exactly the history the responses describe", async () => {
    const harness = createHarness();
    const seed = await harness.rotate("openai", "sk-openai-seed-0000000");
    await settle(harness);
    const keys = Array.from({ length: 20 }, (_, index) => `sk-openai-parallel-${index + 10}`);
    const responses = await Promise.all(
      keys.map((key, index) =>
        harness.at(index % 2 === 0 ? "edge-a" : "edge-b")("PUT", "/keys/openai", {
          body: { key, label: `parallel-${index}` },
        }),
      ),
    );
    for (const response of responses) expect(response.status, response.text).toBe(201);
    const answers = responses
      .map((response) => response.json())
      .sort((a, b) => a.revision - b.revision);
    // One after another: each rotation replaced the one committed just before it.
    expect(answers.map((answer) => answer.previous)).toEqual([
      seed.version,
      ...answers.slice(0, -1).map((answer) => answer.version),
    ]);
    expect(new Set(answers.map((answer) => answer.revision)).size).toBe(20);
    await settle(harness);

    const view = (await harness.at("edge-b")("GET", "/keys/openai")).json();
    expect(view.current.version).toBe(answers.at(-1).version);
    expect(view.previous.version).toBe(answers.at(-2).version);
    expect(view.versions.map((version: { version: string }) => version.version).sort()).toEqual(
      [seed.version, ...answers.map((answer) => answer.version)].sort(),
    );
    const app = await harness.createApp();
    await settle(harness);
    expect(await sentKey(harness, "edge-b", app.token)).toBe(keys[answers.at(-1).label.slice(9)]);
  });

  it("revoke ∥ rotate ∥ rollback at two locations: no 5xx, no revoked key comes back, nothing lost", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    const keys = ["sk-openai-race-one-0001", "sk-openai-race-two-0002", "sk-openai-race-three-03"];
    const versions: string[] = [];
    for (const key of keys) {
      versions.push((await harness.rotate("openai", key)).version);
      await harness.advance(1_500);
    }
    await settle(harness);
    const [revoke, rotate, rollback] = await Promise.all([
      harness.at("edge-a")("DELETE", `/keys/openai/${versions[2]}`),
      harness.at("edge-b")("PUT", "/keys/openai", { body: { key: "sk-openai-race-four-004" } }),
      harness.at("edge-b")("POST", "/keys/openai/rollback"),
    ]);
    for (const response of [revoke, rotate, rollback]) {
      expect(response.status, response.text).toBeLessThan(500);
    }
    expect(revoke.status).toBe(200);
    expect(rotate.status).toBe(201);
    await settle(harness);
    const final = (await harness.at("edge-a")("GET", "/keys/openai")).json();
    const revokedVersion = final.versions.find(
      (version: { version: string }) => version.version === versions[2],
    );
    expect(revokedVersion.state).toBe("revoked");
    expect(final.current.version).not.toBe(versions[2]);
    const committed = [revoke, rotate, rollback]
      .filter((response) => response.status < 300)
      .map((response) => response.json());
    const last = committed.sort((a, b) => a.revision - b.revision).at(-1);
    expect(final.revision).toBe(last.revision);
    for (const location of ["edge-a", "edge-b"]) {
      expect(await sentKey(harness, location, app.token)).not.toBe(keys[2]);
    }
  });
});

describe("per-app limits", () => {
  it("60 parallel requests against a limit of 10 allow exactly 10, from any location", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-limit-000001");
    const app = await harness.createApp("limited", { limit: 10, windowSeconds: 60 });
    await settle(harness);
    const writesBefore = harness.kv.attempts.length;
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        harness.at(index % 2 === 0 ? "edge-a" : "edge-b")(
          "POST",
          `/v1/${accountId}/chat/openai/models`,
          { token: app.token, body: {} },
        ),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status !== 429)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(50);
    expect(harness.gatewayCalls).toHaveLength(10);
    // No KV write per proxied call.
    expect(harness.kv.attempts.length).toBe(writesBefore);
  });
});
