/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * The ledger's second write-through target (issue #12): after a rotation, rollback or
 * revocation of a provider's `default` key commits, every gateway that stores the provider's key
 * (`byok.providers`) gets its Secrets Store secret `{gateway}_{provider}_default` overwritten
 * through Cloudflare's API (find the secret by name in the store, PATCH its value); a failed
 * write stays pending, shown by the admin API, and the alarm retries it; no value is ever logged
 * or answered. Proxied calls for such a provider carry the Worker's key, so both change together.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { accountId, createHarness, testConfig } from "./harness.ts";

afterEach(async () => {
  await reset();
});

/** `batch` stores groq's key (BYOK), and the Worker holds groq's keys too. */
const config = testConfig({
  keys: { providers: ["anthropic", "openai", "google-ai-studio", "groq"] },
});

function setUp() {
  return createHarness({ config, byokSecrets: { batch_groq_default: "gsk-first-stored-key" } });
}

describe("BYOK write-through", () => {
  it("a rotation overwrites the gateway's stored key, and the answer says both places were written", async () => {
    const harness = setUp();
    const rotated = await harness.rotate("groq", "gsk-rotated-0000001");
    expect(harness.secretsStore.values.get("batch_groq_default")).toBe("gsk-rotated-0000001");
    expect(rotated.propagation).toEqual({
      kv: "written",
      visibleEverywhereBy: expect.any(String),
      byok: [
        { gateway: "batch", secret: "batch_groq_default", alias: "default", state: "written" },
      ],
    });
    expect(harness.secretsStore.requests).toEqual([
      `GET /accounts/${accountId}/secrets_store/stores/${harness.secretsStore.storeId}/secrets`,
      `PATCH /accounts/${accountId}/secrets_store/stores/${harness.secretsStore.storeId}/secrets/id-0`,
    ]);
    // A proxied call to the BYOK gateway carries the same key the gateway now stores.
    const app = await harness.createApp();
    harness.acceptKeys("groq", "gsk-rotated-0000001");
    const proxied = await harness.call("POST", `/v1/${accountId}/batch`, {
      token: app.token,
      body: [{ provider: "groq", endpoint: "chat/completions", query: { model: "llama" } }],
    });
    expect(proxied.status).toBe(200);
    expect(JSON.parse(harness.gatewayCalls.at(-1)!.body)[0].headers.authorization).toBe(
      "Bearer gsk-rotated-0000001",
    );
    // Rollback and revocation follow too.
    await harness.advance(1000);
    const second = await harness.rotate("groq", "gsk-rotated-0000002");
    expect(harness.secretsStore.values.get("batch_groq_default")).toBe("gsk-rotated-0000002");
    await harness.advance(1000);
    await harness.call("POST", "/keys/groq/rollback");
    expect(harness.secretsStore.values.get("batch_groq_default")).toBe("gsk-rotated-0000001");
    await harness.advance(1000);
    // Revoking the current key falls back to the previous one, in the gateway too.
    await harness.call("DELETE", `/keys/groq/${rotated.version}`);
    expect(harness.secretsStore.values.get("batch_groq_default")).toBe("gsk-rotated-0000002");
    await harness.advance(1000);
    const revoked = await harness.call("DELETE", `/keys/groq/${second.version}?force=true`);
    expect(revoked.status).toBe(200);
    // The revoked key does not stay in the gateway: a placeholder no provider accepts replaces it.
    expect(harness.secretsStore.values.get("batch_groq_default")).toBe("stepwise-no-usable-key");
    expect(harness.transcript.join("\n")).not.toContain("gsk-rotated");
    expect(harness.logs.join("\n")).not.toContain("gsk-rotated");
  });

  it("a named key of the pool is not the gateway's: only the default key is written through", async () => {
    const harness = setUp();
    await harness.rotate("groq", "gsk-default-0000001");
    await harness.advance(1000);
    const named = await harness.call("PUT", "/keys/groq/spare", {
      body: { key: "gsk-spare-00000001" },
    });
    expect(named.json().propagation.byok).toEqual([]);
    expect(harness.secretsStore.values.get("batch_groq_default")).toBe("gsk-default-0000001");
  });

  it("a refused write stays pending, is shown by GET /keys, and the alarm writes it later", async () => {
    const harness = setUp();
    harness.secretsStore.failWith = 503;
    const rotated = await harness.rotate("groq", "gsk-pending-000001");
    expect(rotated.propagation.kv).toBe("written");
    expect(rotated.propagation.byok).toEqual([
      expect.objectContaining({ secret: "batch_groq_default", state: "pending" }),
    ]);
    const view = (await harness.call("GET", "/keys/groq")).json();
    expect(view.pending).toEqual([
      {
        target: "byok",
        entry: "batch_groq_default",
        state: "pending",
        attempts: 1,
        retryAt: new Date(harness.now() + 2000).toISOString(),
        lastError:
          "Cloudflare's API answered 503 (code 10000) to listing the secrets of store 0123456789abcdef0123456789abcdef",
      },
    ]);
    expect(harness.logs).toContainEqual(
      expect.stringContaining("could not write batch_groq_default to byok"),
    );
    harness.secretsStore.failWith = undefined;
    await harness.advance(2000);
    expect(harness.secretsStore.values.get("batch_groq_default")).toBe("gsk-pending-000001");
    expect((await harness.call("GET", "/keys/groq")).json().pending).toEqual([]);
    expect(harness.logs.join("\n")).not.toContain("gsk-pending");
  });

  it("a wrong token is reported with the permission it needs", async () => {
    const harness = setUp();
    harness.secretsStore.failWith = 403;
    await harness.rotate("groq", "gsk-forbidden-00001");
    const [pending] = (await harness.call("GET", "/keys/groq")).json().pending;
    expect(pending.lastError).toContain(
      "SECRETS_STORE_TOKEN needs the Secrets Store edit permission",
    );
  });
});
