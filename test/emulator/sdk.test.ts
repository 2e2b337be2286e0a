import Cloudflare from "cloudflare";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { accountId, emulatorWith, postJson, testConfig, universalBody } from "./helpers.ts";

let emulator: Emulator;
let client: Cloudflare;
const config = testConfig([
  {
    id: "batch",
    rateLimit: { limit: 100, interval: 60, technique: "fixed" },
    routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
  },
]);

beforeEach(async () => {
  emulator = (await emulatorWith({ config })).emulator;
  client = new Cloudflare({
    apiToken: emulator.gatewayToken,
    baseURL: emulator.restUrl,
    maxRetries: 0,
  });
});
afterEach(() => emulator.close());

describe("the cloudflare SDK against the emulator", () => {
  it("lists and reads gateways", async () => {
    const ids: string[] = [];
    for await (const gateway of client.aiGateway.list({ account_id: accountId, per_page: 1 })) {
      ids.push(gateway.id);
    }
    expect(ids).toEqual(["open", "batch"]);
    const batch = await client.aiGateway.get("batch", { account_id: accountId });
    expect(batch).toMatchObject({
      id: "batch",
      rate_limiting_limit: 100,
      rate_limiting_interval: 60,
      rate_limiting_technique: "fixed",
      cache_ttl: 0,
      collect_logs: true,
    });
  });

  it("updates a gateway and the new settings take effect", async () => {
    const body = universalBody(config, "open");
    const before = await postJson(emulator.gatewayUrl("open"), body);
    await before.text();
    const again = await postJson(emulator.gatewayUrl("open"), body);
    await again.text();
    expect(again.headers.get("cf-aig-cache-status")).toBe("MISS");

    const updated = await client.aiGateway.update("open", {
      account_id: accountId,
      cache_invalidate_on_update: true,
      cache_ttl: 120,
      collect_logs: true,
      rate_limiting_interval: 0,
      rate_limiting_limit: 0,
      authentication: true,
    });
    expect(updated).toMatchObject({ id: "open", cache_ttl: 120, authentication: true });

    const first = await postJson(emulator.gatewayUrl("open"), body);
    await first.text();
    const second = await postJson(emulator.gatewayUrl("open"), body);
    await second.text();
    expect([
      first.headers.get("cf-aig-cache-status"),
      second.headers.get("cf-aig-cache-status"),
    ]).toEqual(["MISS", "HIT"]);
    // Authentication is now on: a request without the token is refused.
    const anonymous = await fetch(emulator.gatewayUrl("open"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({
      error: [{ code: 2009, message: "Unauthorized" }],
    });
  });

  it("reads logs with their step, filtered and page by page", async () => {
    emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
    const response = await postJson(emulator.gatewayUrl("open"), universalBody(config, "open"), {
      "cf-aig-metadata": JSON.stringify({ user: "ada" }),
    });
    await response.text();
    const logs = [];
    for await (const log of client.aiGateway.logs.list("open", {
      account_id: accountId,
      order_by: "created_at",
      order_by_direction: "asc",
      per_page: 1,
    })) {
      logs.push(log);
    }
    expect(logs.map((log) => [log.step, log.provider, log.success])).toEqual([
      [0, "anthropic", false],
      [1, "openai", true],
    ]);
    expect(logs[1]!.id).toBe(response.headers.get("cf-aig-log-id"));
    expect(JSON.parse(logs[1]!.metadata!)).toEqual({ user: "ada" });
    expect(logs[1]!.tokens_in).toBeGreaterThan(0);

    const served = await client.aiGateway.logs.list("open", {
      account_id: accountId,
      filters: [
        { key: "provider", operator: "eq", value: ["openai"] },
        { key: "success", operator: "eq", value: [true] },
      ],
    });
    expect(served.result.map((log) => log.step)).toEqual([1]);
    const pastEnd = await client.aiGateway.logs.list("open", { account_id: accountId, page: 5 });
    expect(pastEnd.result).toEqual([]);
  });

  it("creates and deletes a gateway", async () => {
    const created = await client.aiGateway.create({
      account_id: accountId,
      id: "made-by-sdk",
      cache_invalidate_on_update: false,
      cache_ttl: 0,
      collect_logs: true,
      rate_limiting_interval: 0,
      rate_limiting_limit: 0,
    });
    expect(created.id).toBe("made-by-sdk");
    const fresh = await postJson(
      emulator.gatewayUrl("made-by-sdk"),
      universalBody(config, "batch"),
    );
    expect(fresh.status).toBe(200);
    await fresh.text();
    await client.aiGateway.delete("made-by-sdk", { account_id: accountId });
    const gone = await postJson(emulator.gatewayUrl("made-by-sdk"), universalBody(config, "batch"));
    expect(gone.status).toBe(400);
    expect(await gone.json()).toMatchObject({ error: [{ code: 2001 }] });
    await expect(
      client.aiGateway.get("made-by-sdk", { account_id: accountId }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it("gives a gateway's provider URL", async () => {
    const url = await client.aiGateway.urls.get("openai", {
      account_id: accountId,
      gateway_id: "open",
    });
    expect(url).toBe(`${emulator.gatewayUrl("open")}/openai`);
  });

  it("rejects a bad update with the problems named", async () => {
    await expect(
      client.aiGateway.update("open", {
        account_id: accountId,
        cache_invalidate_on_update: true,
        cache_ttl: -1,
        collect_logs: true,
        rate_limiting_interval: 0,
        rate_limiting_limit: 0,
      }),
    ).rejects.toMatchObject({ status: 400 });
  });
});
