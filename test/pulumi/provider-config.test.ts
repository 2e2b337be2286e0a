/**
 * The BYOK provider-config dynamic provider: the requests it makes to Cloudflare's API through the
 * `cloudflare` SDK (checked with msw), what it keeps in state, when a change replaces the config,
 * that a config already gone counts as deleted — and the same calls against the emulator's REST
 * subset, where the config then really supplies the key.
 */
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.ts";
import { startEmulator } from "../../src/emulator/index.ts";
import {
  type ProviderConfigInputs,
  providerConfigProvider,
} from "../../src/pulumi/provider-config.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const api = "https://api.cloudflare.com/client/v4";
const configsPath = `${api}/accounts/${accountId}/ai-gateway/gateways/chat/provider_configs`;
const inputs: ProviderConfigInputs = {
  accountId,
  gatewayId: "chat",
  providerSlug: "anthropic",
  alias: "default",
  secretId: "5ec2e7",
  defaultConfig: true,
  apiToken: "cf-token-test",
};

const calls: { method: string; url: string; authorization: string | null; body: unknown }[] = [];
const server = setupServer(
  http.post(configsPath, async ({ request }) => {
    calls.push({
      method: "POST",
      url: request.url,
      authorization: request.headers.get("authorization"),
      body: await request.json(),
    });
    return HttpResponse.json({
      success: true,
      errors: [],
      messages: [],
      result: {
        id: "pc-1",
        alias: "default",
        default_config: true,
        gateway_id: "chat",
        modified_at: "2026-04-01T00:00:00Z",
        provider_slug: "anthropic",
        secret_id: "5ec2e7",
        secret_preview: "****",
      },
    });
  }),
  http.delete(`${configsPath}/:id`, ({ request, params }) => {
    calls.push({ method: "DELETE", url: request.url, authorization: null, body: null });
    if (params.id === "gone") {
      return HttpResponse.json(
        { success: false, errors: [{ code: 7003, message: "not found" }], messages: [] },
        { status: 404 },
      );
    }
    if (params.id === "broken") {
      return HttpResponse.json(
        { success: false, errors: [{ code: 10000, message: "Authentication error" }] },
        { status: 403 },
      );
    }
    return HttpResponse.json({ success: true, errors: [], messages: [], result: {} });
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => {
  server.resetHandlers();
  calls.length = 0;
});
afterAll(() => server.close());

describe("the BYOK provider-config provider against Cloudflare's API (msw)", () => {
  it("creates the config with the secret, slug and alias, using the stack's token", async () => {
    const created = await providerConfigProvider.create!(inputs);
    expect(calls).toEqual([
      {
        method: "POST",
        url: configsPath,
        authorization: "Bearer cf-token-test",
        body: {
          alias: "default",
          default_config: true,
          provider_slug: "anthropic",
          secret_id: "5ec2e7",
        },
      },
    ]);
    expect(created).toEqual({
      id: "pc-1",
      outs: { ...inputs, modifiedAt: "2026-04-01T00:00:00Z" },
    });
  });

  it("replaces the config when its secret, alias or provider changes, never for the token", async () => {
    const diff = providerConfigProvider.diff!;
    expect(await diff("pc-1", inputs, { ...inputs, apiToken: "rotated-token" })).toMatchObject({
      changes: false,
      replaces: [],
    });
    expect(await diff("pc-1", inputs, { ...inputs, secretId: "other", alias: "backup" })).toEqual({
      changes: true,
      replaces: ["alias", "secretId"],
      deleteBeforeReplace: true,
    });
  });

  it("deletes by id, treats a config already gone as deleted, and reports other failures", async () => {
    await providerConfigProvider.delete!("pc-1", inputs);
    await providerConfigProvider.delete!("gone", inputs);
    expect(calls.map((call) => `${call.method} ${call.url}`)).toEqual([
      `DELETE ${configsPath}/pc-1`,
      `DELETE ${configsPath}/gone`,
    ]);
    await expect(providerConfigProvider.delete!("broken", inputs)).rejects.toThrow(
      /Authentication error/,
    );
  });
});

describe("the BYOK provider-config provider against the emulator", () => {
  it("creates a config the gateway then uses, and deletes it", async () => {
    server.close();
    const config = parseConfig({
      accountId,
      gateways: [
        {
          id: "chat",
          authentication: true,
          byok: { providers: ["openai"] },
          routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
        },
      ],
    });
    const emulator = await startEmulator({ config, onError: () => undefined });
    try {
      const [store] = emulator.state.gateways.secrets.listStores();
      const secret = emulator.state.gateways.secrets.createSecret(store!.id, {
        name: "chat_openai_backup",
        value: "sk-backup",
        scopes: ["ai_gateway"],
      });
      const target = {
        ...inputs,
        providerSlug: "openai",
        alias: "backup",
        defaultConfig: false,
        secretId: secret.id,
        baseUrl: emulator.restUrl,
        // The emulator's REST API checks its token, as Cloudflare's does.
        apiToken: emulator.gatewayToken,
      };
      const created = await providerConfigProvider.create!(target);
      const gateway = emulator.state.gateways.get("chat")!;
      expect(gateway.providerConfigs.find("openai", "backup")?.id).toBe(created.id);
      await providerConfigProvider.delete!(created.id, target);
      expect(gateway.providerConfigs.find("openai", "backup")).toBeUndefined();
      // Deleting it again is fine: it is gone.
      await providerConfigProvider.delete!(created.id, target);
    } finally {
      await emulator.close();
      server.listen({ onUnhandledRequest: "error" });
    }
  });
});
