/**
 * The real program (`infra/index.ts`) over the example stack, `Pulumi.dev.yaml`, with Pulumi's
 * mocks: every resource's type token, name, parent and inputs, the stack outputs, and secrets.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  loadConfig,
  parseWorkerView,
  type StepwiseConfig,
  workerView,
} from "../../src/config/index.ts";
import {
  canonicalJson,
  expressibleInPulumi,
  routeGraphHash,
  toPulumiElements,
} from "../../src/pulumi/dynamic-route.ts";
import { readWranglerSettings } from "../../src/pulumi/wrangler-config.ts";
import { compileDynamicRoute } from "../../src/routes/index.ts";
import {
  devStackByokKeys,
  devStackResourceTree,
  fixtureBundlePath,
  installMocks,
  type Recorder,
  repoRoot,
  stackConfigFromFile,
} from "../pulumi/helpers.ts";

const testSecrets = {
  "stepwise:rotateToken": "test-rotate-token-3f9a71c2",
  "stepwise:gatewayToken": "test-gateway-token-8be0d5a4",
  "stepwise:secretsStoreToken": "test-secrets-store-token-5d21",
  "stepwise:analyticsApiToken": "test-analytics-read-token-77c3",
  "cloudflare:apiToken": "test-cloudflare-api-token-11aa",
  "stepwise:byokKeys": JSON.stringify(devStackByokKeys),
};
/** Every secret value the stack is given, to search outputs and plain inputs for. */
const secretValues = [
  testSecrets["stepwise:rotateToken"],
  testSecrets["stepwise:gatewayToken"],
  testSecrets["stepwise:secretsStoreToken"],
  testSecrets["stepwise:analyticsApiToken"],
  testSecrets["cloudflare:apiToken"],
  ...Object.values(devStackByokKeys),
];

let recorder: Recorder;
let outputs: Record<string, unknown>;
let config: StepwiseConfig;

beforeAll(async () => {
  ({ config } = await loadConfig({ stack: "dev", cwd: repoRoot }));
  const mocks = await installMocks("dev");
  recorder = mocks.recorder;
  const stackConfig = stackConfigFromFile(path.join(repoRoot, "Pulumi.dev.yaml"), testSecrets);
  pulumi.runtime.setAllConfig(stackConfig.config, stackConfig.secretKeys);
  vi.stubEnv("STEPWISE_WORKER_BUNDLE", fixtureBundlePath);
  vi.resetModules();
  outputs = (await pulumi.runtime.runInPulumiStack(async () => {
    pulumi.runtime.registerStackTransformation(mocks.transformation);
    return await import("../../infra/index.ts");
  })) as Record<string, unknown>;
  vi.unstubAllEnvs();
});

describe("the example stack", () => {
  it("declares exactly one component per concern and their children", () => {
    const summary = recorder.resources
      .map(({ type, name, parent }) => `${type} ${name} < ${parent}`)
      .sort();
    expect(summary).toEqual([...devStackResourceTree].sort());
  });

  it("stores chat-dynamic's keys and lists each in a provider config, before its route", () => {
    const chatDynamic = recorder.named("chat-dynamic-gateway");
    expect(chatDynamic.inputs.storeId).toBe("byok-store-id");
    expect(recorder.named("byok-chat-dynamic-openai").inputs).toMatchObject({
      name: "chat-dynamic_openai_default",
      scopes: ["ai_gateway"],
      value: devStackByokKeys.openai,
    });
    expect(recorder.named("chat-dynamic-byok-openai").inputs).toMatchObject({
      accountId: config.accountId,
      gatewayId: "chat-dynamic",
      providerSlug: "openai",
      alias: "default",
      defaultConfig: true,
      secretId: "byok-chat-dynamic-openai-id",
      apiToken: testSecrets["cloudflare:apiToken"],
    });
    expect(recorder.named("chat-dynamic-byok-openai").secretInputs).toContain("apiToken");
    for (const route of ["chat-dynamic-route-default", "chat-dynamic-route-assistant"]) {
      expect(recorder.named(route).options.dependsOn).toHaveLength(3);
    }
    expect(recorder.named("chat-prod-gateway").inputs).not.toHaveProperty("storeId");
  });

  it("sends every setting of chat-prod to its gateway", () => {
    const gateway = recorder.named("chat-prod-gateway");
    expect(gateway.inputs).toEqual({
      accountId: "0123456789abcdef0123456789abcdef",
      aiGatewayId: "chat-prod",
      authentication: true,
      cacheTtl: 300,
      cacheInvalidateOnUpdate: true,
      rateLimitingLimit: 600,
      rateLimitingInterval: 60,
      rateLimitingTechnique: "sliding",
      collectLogs: true,
      logManagement: 1_000_000,
      logManagementStrategy: "DELETE_OLDEST",
      retryMaxAttempts: 2,
      retryDelay: 250,
      retryBackoff: "exponential",
      spendLimits: {
        enabled: true,
        rules: [
          {
            id: "daily-budget",
            enabled: true,
            limit: 50,
            limitType: "cost",
            window: 86400,
            technique: "sliding",
          },
        ],
      },
    });
    expect(gateway.options.ignoreChanges).toEqual(
      expect.arrayContaining(["dlp", "guardrails", "otels", "zdr", "storeId"]),
    );
    expect(gateway.options.ignoreChanges).not.toContain("retryMaxAttempts");
  });

  it("turns off what batch-dev leaves unset with explicit values, and ignores unset retries", () => {
    const gateway = recorder.named("batch-dev-gateway");
    expect(gateway.inputs).toMatchObject({
      aiGatewayId: "batch-dev",
      authentication: false,
      cacheTtl: 3600,
      cacheInvalidateOnUpdate: false,
      rateLimitingLimit: 100,
      rateLimitingInterval: 60,
      rateLimitingTechnique: "fixed",
      logManagement: 100_000,
      logManagementStrategy: "STOP_INSERTING",
      spendLimits: { enabled: false },
    });
    expect(gateway.inputs).not.toHaveProperty("retryMaxAttempts");
    expect(gateway.options.ignoreChanges).toEqual(
      expect.arrayContaining(["retryMaxAttempts", "retryDelay", "retryBackoff"]),
    );
  });

  it("deploys each dynamic route as the compiler's graph, in the Pulumi spelling", () => {
    for (const gateway of config.gateways) {
      for (const [routeName, route] of Object.entries(gateway.routes)) {
        if (route.dynamic === false) {
          expect(() => recorder.named(`${gateway.id}-route-${routeName}`)).toThrow();
          continue;
        }
        const resource = recorder.named(`${gateway.id}-route-${routeName}`);
        const compiled = compileDynamicRoute(route);
        if (!expressibleInPulumi(compiled)) {
          expect(resource.inputs).toMatchObject({
            accountId: config.accountId,
            gatewayId: gateway.id,
            name: routeName,
            elementsJson: canonicalJson(compiled),
            apiToken: testSecrets["cloudflare:apiToken"],
          });
          expect(resource.secretInputs).toContain("apiToken");
          continue;
        }
        expect(resource.inputs).toEqual({
          accountId: config.accountId,
          gatewayId: gateway.id,
          name: routeName,
          elements: toPulumiElements(compiled),
        });
        expect(resource.options.replacementTrigger).toBe(routeGraphHash(compiled));
        expect(resource.options.deleteBeforeReplace).toBe(true);
        expect(resource.options.ignoreChanges).toBeUndefined();
      }
    }
    // One route spelled out: provider → aiGatewayDynamicRoutingProvider, fallback in order.
    expect(recorder.named("chat-dynamic-route-default").inputs.elements).toEqual([
      { id: "start", type: "start", outputs: { next: { elementId: "model-0" } } },
      {
        id: "model-0",
        type: "model",
        properties: {
          aiGatewayDynamicRoutingProvider: "anthropic",
          model: "claude-sonnet-4-5",
          timeout: 15000,
          retries: 1,
        },
        outputs: { success: { elementId: "end" }, fallback: { elementId: "model-1" } },
      },
      {
        id: "model-1",
        type: "model",
        properties: {
          aiGatewayDynamicRoutingProvider: "openai",
          model: "gpt-4o-mini",
          timeout: 10000,
        },
        outputs: { success: { elementId: "end" }, fallback: { elementId: "model-2" } },
      },
      {
        id: "model-2",
        type: "model",
        properties: {
          aiGatewayDynamicRoutingProvider: "workers-ai",
          model: "@cf/meta/llama-3.1-8b-instruct",
          timeout: 5000,
        },
        outputs: { success: { elementId: "end" }, fallback: { elementId: "end" } },
      },
      { id: "end", type: "end", outputs: {} },
    ]);
  });

  it("deploys the assistant policy with the exact elements Cloudflare gets, in the API's spelling", () => {
    const sent = JSON.parse(
      recorder.named("chat-dynamic-route-assistant").inputs.elementsJson as string,
    ) as unknown[];
    const model = (
      id: string,
      provider: string,
      name: string,
      timeout: number,
      fallback = "end",
    ) => ({
      id,
      type: "model",
      properties: {
        provider,
        model: name,
        timeout,
        ...(id === "frontier-model-0" ? { retries: 1 } : {}),
      },
      outputs: { success: { elementId: "end" }, fallback: { elementId: fallback } },
    });
    const to = (elementId: string) => ({ elementId });
    expect(sent).toEqual([
      { id: "start", type: "start", outputs: { next: to("rule-0") } },
      {
        id: "rule-0",
        type: "conditional",
        properties: {
          conditions: {
            $and: [{ "metadata.plan": { $eq: "free" } }, { "metadata.tier": { $eq: "complex" } }],
          },
        },
        outputs: { true: to("model-0"), false: to("rule-1") },
      },
      {
        id: "rule-1",
        type: "conditional",
        properties: { conditions: { "metadata.plan": { $eq: "free" } } },
        outputs: { true: to("economy-model-0"), false: to("rule-2") },
      },
      {
        id: "rule-2",
        type: "conditional",
        properties: {
          conditions: {
            $and: [{ "metadata.plan": { $eq: "pro" } }, { "metadata.tier": { $eq: "complex" } }],
          },
        },
        outputs: { true: to("rule-2-budget"), false: to("rule-3") },
      },
      {
        id: "rule-2-budget",
        type: "rate",
        properties: { key: "metadata.plan", limit: 0.001, limitType: "cost", window: 3600 },
        outputs: { success: to("frontier-model-0"), fallback: to("model-0") },
      },
      {
        id: "rule-3",
        type: "conditional",
        properties: { conditions: { "metadata.plan": { $eq: "pro" } } },
        outputs: { true: to("rule-3-split"), false: to("model-0") },
      },
      {
        id: "rule-3-split",
        type: "percentage",
        outputs: { "10%": to("candidate-model-0"), else: to("model-0") },
      },
      model("model-0", "openai", "gpt-4o-mini", 10000, "model-1"),
      model("model-1", "workers-ai", "@cf/meta/llama-3.1-8b-instruct", 5000),
      model(
        "economy-model-0",
        "workers-ai",
        "@cf/meta/llama-3.1-8b-instruct",
        5000,
        "economy-model-1",
      ),
      model("economy-model-1", "openai", "gpt-4o-mini", 10000),
      model("frontier-model-0", "anthropic", "claude-sonnet-4-5", 15000, "frontier-model-1"),
      model("frontier-model-1", "openai", "gpt-4o", 15000),
      model("candidate-model-0", "openai", "gpt-4.1-mini", 10000, "candidate-model-1"),
      model("candidate-model-1", "openai", "gpt-4o-mini", 10000),
      { id: "end", type: "end", outputs: {} },
    ]);
  });

  it("uploads the Worker bundle by file and hash, with the wrangler.jsonc runtime", () => {
    const script = recorder.named("key-vault-worker");
    const wrangler = readWranglerSettings(path.join(repoRoot, "wrangler.jsonc"));
    expect(script.inputs).toMatchObject({
      accountId: config.accountId,
      scriptName: "stepwise-keys",
      contentFile: fixtureBundlePath,
      contentSha256: createHash("sha256").update(readFileSync(fixtureBundlePath)).digest("hex"),
      mainModule: "worker-bundle.js",
      compatibilityDate: wrangler.compatibilityDate,
    });
    expect(recorder.named("key-vault-kv").inputs).toEqual({
      accountId: config.accountId,
      title: "stepwise-keys-KEYS",
    });
    expect(recorder.named("key-vault-cron").inputs).toEqual({
      accountId: config.accountId,
      scriptName: "stepwise-keys",
      // It fires at 01:00 UTC, so the daily summary (its token is set) needs no schedule of its own.
      schedules: [{ cron: "*/15 * * * *" }],
    });
    expect(recorder.named("key-vault-subdomain").inputs).toEqual({
      accountId: config.accountId,
      scriptName: "stepwise-keys",
      enabled: true,
      previewsEnabled: false,
    });
  });

  it("binds KV, the secrets, the gateway URL, the config without secrets and Analytics Engine", () => {
    const bindings = recorder.named("key-vault-worker").inputs.bindings as Record<
      string,
      unknown
    >[];
    const byName = Object.fromEntries(bindings.map((binding) => [binding.name, binding]));
    expect(bindings.map((binding) => binding.name)).toEqual([
      "ANALYTICS_API_TOKEN",
      "APP_LIMITER",
      "BYOK_STORE_ID",
      "CLOUDFLARE_API_URL",
      "DAILY_SUMMARY",
      "EVENTS",
      "EVENTS_DATASET",
      "GATEWAY_TOKEN",
      "GATEWAY_URL",
      "KEY_LEDGER",
      "KEYS",
      "PROVIDER_MONITOR",
      "ROTATE_TOKEN",
      "SECRETS_STORE_TOKEN",
      "STEPWISE_CONFIG",
    ]);
    // Rotations reach the BYOK gateways' stored keys: the token (a secret) and their store.
    expect(byName.SECRETS_STORE_TOKEN).toEqual({
      name: "SECRETS_STORE_TOKEN",
      type: "secret_text",
      text: testSecrets["stepwise:secretsStoreToken"],
    });
    expect(byName.BYOK_STORE_ID).toMatchObject({ type: "plain_text" });
    // The cron's daily summary: its dataset (wrangler.jsonc's), the token it queries the SQL API
    // with (a secret), and the name of the dataset it queries, which is EVENTS'.
    expect(byName.DAILY_SUMMARY).toEqual({
      name: "DAILY_SUMMARY",
      type: "analytics_engine",
      dataset: "stepwise_daily",
    });
    expect(byName.ANALYTICS_API_TOKEN).toEqual({
      name: "ANALYTICS_API_TOKEN",
      type: "secret_text",
      text: testSecrets["stepwise:analyticsApiToken"],
    });
    expect(byName.EVENTS_DATASET).toEqual({
      name: "EVENTS_DATASET",
      type: "plain_text",
      text: (byName.EVENTS as { dataset: string }).dataset,
    });
    expect(byName.CLOUDFLARE_API_URL).toEqual({
      name: "CLOUDFLARE_API_URL",
      type: "plain_text",
      text: "https://api.cloudflare.com/client/v4",
    });
    expect(byName.KEYS).toEqual({
      name: "KEYS",
      type: "kv_namespace",
      namespaceId: "key-vault-kv-id",
    });
    expect(byName.ROTATE_TOKEN).toEqual({
      name: "ROTATE_TOKEN",
      type: "secret_text",
      text: testSecrets["stepwise:rotateToken"],
    });
    expect(byName.GATEWAY_TOKEN).toEqual({
      name: "GATEWAY_TOKEN",
      type: "secret_text",
      text: testSecrets["stepwise:gatewayToken"],
    });
    expect(byName.GATEWAY_URL).toEqual({
      name: "GATEWAY_URL",
      type: "plain_text",
      text: "https://gateway.ai.cloudflare.com",
    });
    expect(byName.EVENTS).toEqual({
      name: "EVENTS",
      type: "analytics_engine",
      dataset: "stepwise_events",
    });
    const workerConfig = JSON.parse((byName.STEPWISE_CONFIG as { text: string }).text);
    expect(workerConfig).not.toHaveProperty("rotateToken");
    expect(workerConfig).not.toHaveProperty("gatewayToken");
    expect(workerConfig).not.toHaveProperty("byokKeys");
    expect(workerConfig).not.toHaveProperty("secretsStoreToken");
    expect(workerConfig).not.toHaveProperty("analyticsApiToken");
    // The key pools' caps and the probes' settings reach the Worker exactly as written.
    expect(workerConfig.keys.caps).toEqual({ openai: { rpm: 10000, tpm: 2000000 } });
    expect(workerConfig.worker.healthProbe).toEqual({
      enabled: true,
      slowMs: 5000,
      slowMsPerModel: { "workers-ai": 8000 },
      probationSeconds: 900,
    });
    // What the Worker parses is the stack's worker view: the part of the config it reads.
    expect(parseWorkerView(workerConfig)).toEqual(workerView(config));
  });

  it("keeps the secrets secret: the engine gets them as secrets, nothing else carries them", () => {
    expect(recorder.named("key-vault-worker").secretInputs).toEqual(["bindings"]);
    for (const resource of recorder.resources) {
      const plain = Object.fromEntries(
        Object.entries(resource.inputs).filter(([key]) => !resource.secretInputs.includes(key)),
      );
      for (const secret of secretValues) {
        expect(
          JSON.stringify(plain),
          `${resource.name} carries a secret in plain text`,
        ).not.toContain(secret);
      }
    }
    for (const secret of secretValues) expect(JSON.stringify(outputs)).not.toContain(secret);
  });

  it("exports each gateway's URLs and routes, and the KV namespace id", () => {
    const base = `https://gateway.ai.cloudflare.com/v1/${config.accountId}`;
    expect(outputs.gateways).toEqual({
      "chat-prod": {
        universalUrl: `${base}/chat-prod`,
        compatUrl: `${base}/chat-prod/compat`,
        routes: {},
      },
      "chat-dynamic": {
        universalUrl: `${base}/chat-dynamic`,
        compatUrl: `${base}/chat-dynamic/compat`,
        routes: {
          default: { id: "chat-dynamic-route-default-id", model: "dynamic/default" },
          assistant: { id: "chat-dynamic-route-assistant-id", model: "dynamic/assistant" },
        },
      },
      "batch-dev": {
        universalUrl: `${base}/batch-dev`,
        compatUrl: `${base}/batch-dev/compat`,
        routes: {},
      },
    });
    expect(outputs.kvNamespaceId).toBe("key-vault-kv-id");
    expect(outputs.secretsStoreId).toBe("byok-store-id");
    // The example stack does not name its workers.dev subdomain, so there is no Worker URL.
    expect(outputs.workerUrl).toBeUndefined();
  });
});
