/**
 * BYOK in the emulator, as Cloudflare documents it: keys stored in the gateway (a Secrets Store
 * secret `{gateway}_{provider}_{alias}` plus a provider config) are what dynamic routes use, and
 * what provider-native and universal calls get when they bring none; `cf-aig-byok-alias` picks
 * one; keys are managed through the REST API with the real `cloudflare` SDK, and overwriting a
 * secret changes the key on the very next request.
 */
import Cloudflare from "cloudflare";
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import {
  accountId,
  collect,
  emulatorWith,
  openAiCompletion,
  postJson,
  type StubRequest,
  startStub,
  testConfig,
} from "./helpers.ts";

let emulator: Emulator | undefined;
let stub: Awaited<ReturnType<typeof startStub>> | undefined;
afterEach(async () => {
  await emulator?.close();
  await stub?.close();
  emulator = undefined;
  stub = undefined;
});

const messages = [{ role: "user", content: "Hello there" }];

/** An OpenAI stand-in that records each request and answers with a completion. */
async function openAiStub() {
  stub = await startStub((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(openAiCompletion("stored key answer", "gpt-4o-mini")));
  });
  return stub;
}

const keysSeen = (requests: readonly StubRequest[]) =>
  requests.map((request) => request.headers.authorization);

const chatGateway = (extra: Record<string, unknown> = {}) => ({
  id: "chat",
  authentication: true,
  byok: { providers: ["openai"] },
  routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
  ...extra,
});

function dynamicCall(headers: Record<string, string> = {}, gateway = "chat") {
  return postJson(
    `${emulator!.compatUrl(gateway)}/chat/completions`,
    { model: "dynamic/default", messages },
    headers,
  );
}

describe("dynamic routes need what Cloudflare needs", () => {
  it("refuses dynamic/<route> on an unauthenticated gateway with 401, code 2009", async () => {
    ({ emulator } = await emulatorWith({
      config: testConfig([chatGateway({ authentication: false })]),
    }));
    const response = await dynamicCall({ authorization: "Bearer sk-caller" });
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: { code: number; message: string }[] };
    expect(body.error[0]).toMatchObject({ code: 2009 });
    expect(body.error[0]!.message).toMatch(/authenticated gateways.*chat/);
    expect(emulator.mocks!.attempts).toEqual([]);
  });

  it("answers 400, code 2040, without calling any provider when no key is stored", async () => {
    ({ emulator } = await emulatorWith({
      config: testConfig([chatGateway({ byok: undefined })]),
    }));
    const response = await dynamicCall({ authorization: "Bearer sk-caller" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: [
        {
          code: 2040,
          message:
            "Provider 'openai' has no BYOK credential named 'default'. Configured aliases: none",
        },
      ],
    });
    expect(emulator.mocks!.attempts).toEqual([]);
  });

  it("serves with the stored key and never sends the caller's Authorization upstream", async () => {
    const upstream = await openAiStub();
    ({ emulator } = await emulatorWith({
      config: testConfig([chatGateway()]),
      upstreams: { openai: upstream.url },
      byokKeys: { openai: "sk-stored" },
    }));
    const response = await dynamicCall({ authorization: "Bearer sk-caller" });
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-provider")).toBe("openai");
    await response.text();
    expect(keysSeen(upstream.requests)).toEqual(["Bearer sk-stored"]);
  });

  it("accepts the gateway token as the OpenAI SDK's apiKey, as Cloudflare's examples do", async () => {
    const upstream = await openAiStub();
    ({ emulator } = await emulatorWith({
      config: testConfig([chatGateway()]),
      upstreams: { openai: upstream.url },
      byokKeys: { openai: "sk-stored" },
    }));
    const response = await fetch(`${emulator.compatUrl("chat")}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${emulator.gatewayToken}`,
      },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages }),
    });
    expect(response.status).toBe(200);
    await response.text();
    // The gateway token authenticated the call; it is not a provider key and never leaves.
    expect(keysSeen(upstream.requests)).toEqual(["Bearer sk-stored"]);
  });

  it("runs permissively with lenient: true (caller's key, any gateway)", async () => {
    const upstream = await openAiStub();
    ({ emulator } = await emulatorWith({
      config: testConfig([chatGateway({ authentication: false, byok: undefined })]),
      upstreams: { openai: upstream.url },
      lenient: true,
    }));
    const response = await dynamicCall({ authorization: "Bearer sk-caller" });
    expect(response.status).toBe(200);
    await response.text();
    expect(keysSeen(upstream.requests)).toEqual(["Bearer sk-caller"]);
  });
});

describe("stored keys on provider-native and universal calls", () => {
  async function start() {
    const upstream = await openAiStub();
    ({ emulator } = await emulatorWith({
      config: testConfig([chatGateway()]),
      upstreams: { openai: upstream.url },
      byokKeys: { openai: "sk-stored" },
    }));
    return upstream;
  }
  const native = (headers: Record<string, string>) =>
    postJson(
      `${emulator!.gatewayUrl("chat")}/openai/chat/completions`,
      { model: "gpt-4o-mini", messages },
      headers,
    );

  it("injects the stored key when the caller sends none, and keeps a caller's own key", async () => {
    const upstream = await start();
    await (await native({})).text();
    await (await native({ authorization: "Bearer sk-caller" })).text();
    const universal = await postJson(emulator!.gatewayUrl("chat"), [
      {
        provider: "openai",
        endpoint: "chat/completions",
        headers: {},
        query: { model: "gpt-4o-mini", messages },
      },
    ]);
    expect(universal.status).toBe(200);
    await universal.text();
    expect(keysSeen(upstream.requests)).toEqual([
      "Bearer sk-stored",
      "Bearer sk-caller",
      "Bearer sk-stored",
    ]);
  });

  it("selects a key by cf-aig-byok-alias, and refuses an unknown alias with 400, code 2040", async () => {
    const upstream = await start();
    const client = new Cloudflare({
      apiToken: emulator!.gatewayToken,
      baseURL: emulator!.restUrl,
      maxRetries: 0,
    });
    const gateway = await client.aiGateway.get("chat", { account_id: accountId });
    const storeId = (gateway as unknown as { store_id: string }).store_id;
    const [secret] = await collect(
      client.secretsStore.stores.secrets.create(storeId, {
        account_id: accountId,
        body: [{ name: "chat_openai_backup", value: "sk-backup", scopes: ["ai_gateway"] }],
      }),
    );
    expect(secret).toMatchObject({ name: "chat_openai_backup", status: "active" });
    expect(JSON.stringify(secret)).not.toContain("sk-backup");
    const config = await client.aiGateway.providerConfigs.create("chat", {
      account_id: accountId,
      alias: "backup",
      default_config: false,
      provider_slug: "openai",
      secret_id: secret!.id,
    });
    expect(config).toMatchObject({ alias: "backup", provider_slug: "openai", gateway_id: "chat" });
    expect(config.secret_preview).not.toContain("sk-");

    await (
      await native({ "cf-aig-byok-alias": "backup", authorization: "Bearer sk-caller" })
    ).text();
    expect(keysSeen(upstream.requests)).toEqual(["Bearer sk-backup"]);
    const unknown = await native({ "cf-aig-byok-alias": "nope" });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({
      error: [
        {
          code: 2040,
          message:
            "Provider 'openai' has no BYOK credential named 'nope'. Configured aliases: default, backup",
        },
      ],
    });
    expect(upstream.requests).toHaveLength(1);
  });

  it("uses an overwritten secret on the very next request (rotation)", async () => {
    const upstream = await start();
    const client = new Cloudflare({
      apiToken: emulator!.gatewayToken,
      baseURL: emulator!.restUrl,
      maxRetries: 0,
    });
    const [store] = await collect(client.secretsStore.stores.list({ account_id: accountId }));
    const secrets = await collect(
      client.secretsStore.stores.secrets.list(store!.id, { account_id: accountId }),
    );
    const secret = secrets.find((candidate) => candidate.name === "chat_openai_default")!;
    await (await dynamicCall()).text();
    await client.secretsStore.stores.secrets.edit(secret.id, {
      account_id: accountId,
      store_id: store!.id,
      value: "sk-rotated",
    });
    await (await dynamicCall()).text();
    await (await native({})).text();
    expect(keysSeen(upstream.requests)).toEqual([
      "Bearer sk-stored",
      "Bearer sk-rotated",
      "Bearer sk-rotated",
    ]);
  });

  it("stores a plain key given to providerConfigs.create under the name the gateway looks up", async () => {
    const upstream = await openAiStub();
    ({ emulator } = await emulatorWith({
      config: testConfig([chatGateway({ byok: undefined })]),
      upstreams: { openai: upstream.url },
    }));
    const client = new Cloudflare({
      apiToken: emulator.gatewayToken,
      baseURL: emulator.restUrl,
      maxRetries: 0,
    });
    // No store yet: the gateway must point at one first.
    await expect(
      client.aiGateway.providerConfigs.create("chat", {
        account_id: accountId,
        alias: "default",
        default_config: true,
        provider_slug: "openai",
        secret: "sk-new",
      }),
    ).rejects.toThrow(/no Secrets Store/);
    const store = await client.secretsStore.stores.create({ account_id: accountId, name: "keys" });
    const current = await client.aiGateway.get("chat", { account_id: accountId });
    await client.aiGateway.update("chat", {
      ...current,
      account_id: accountId,
      store_id: store.id,
    } as never);
    await client.aiGateway.providerConfigs.create("chat", {
      account_id: accountId,
      alias: "default",
      default_config: true,
      provider_slug: "openai",
      secret: "sk-new",
    });
    const listed = await collect(
      client.secretsStore.stores.secrets.list(store.id, { account_id: accountId }),
    );
    expect(listed.map((secret) => [secret.name, secret.scopes])).toEqual([
      ["chat_openai_default", ["ai_gateway"]],
    ]);
    const configs = await collect(
      client.aiGateway.providerConfigs.list("chat", { account_id: accountId }),
    );
    expect(configs.map((config) => config.alias)).toEqual(["default"]);
    const response = await dynamicCall();
    expect(response.status).toBe(200);
    await response.text();
    expect(keysSeen(upstream.requests)).toEqual(["Bearer sk-new"]);
  });
});
