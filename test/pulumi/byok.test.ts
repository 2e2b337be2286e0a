/**
 * BYOK gateways through the real program: provider keys from `stepwise:byokKeys` (a Pulumi
 * secret) become Secrets Store secrets named `{gateway}_{provider}_default`, scoped to AI
 * Gateway, each listed in the gateway's provider configs, and stay secret in the resources'
 * outputs. A config whose dynamic routes Cloudflare would not run is refused before any resource.
 */

import type { SecretsStoreSecret } from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { parseConfig } from "../../src/config/index.ts";
import { buildStack } from "../../src/pulumi/stack.ts";
import {
  fixtureBundlePath,
  installMocks,
  promiseOf,
  type Recorder,
  settle,
  stackConfig,
} from "./helpers.ts";

const stack = {
  "stepwise:accountId": "0123456789abcdef0123456789abcdef",
  "stepwise:gateways": [
    {
      id: "byok-gw",
      authentication: true,
      byok: { providers: ["anthropic", "openai"] },
      routes: {
        default: [
          { provider: "anthropic", model: "claude-sonnet-4-5" },
          { provider: "openai", model: "gpt-4o-mini" },
        ],
        // groq's key is in the Worker, not the gateway: this route stays universal-only.
        fast: { dynamic: false, steps: [{ provider: "groq", model: "llama" }] },
      },
    },
    {
      id: "plain-gw",
      routes: { fast: { dynamic: false, steps: [{ provider: "groq", model: "llama" }] } },
    },
  ],
  "stepwise:keys": { providers: ["groq"] },
  "stepwise:worker": { workersDevSubdomain: "acme" },
};
const byokKeys = { anthropic: "sk-ant-test-0b3c", openai: "sk-openai-test-77d1" };

let recorder: Recorder;
let outputs: Record<string, unknown>;

beforeAll(async () => {
  const mocks = await installMocks("byok");
  recorder = mocks.recorder;
  const { config, secretKeys } = stackConfig(stack, {
    "stepwise:byokKeys": JSON.stringify(byokKeys),
    "stepwise:rotateToken": "rotate-token-test",
    "cloudflare:apiToken": "cloudflare-token-test",
  });
  pulumi.runtime.setAllConfig(config, secretKeys);
  vi.stubEnv("STEPWISE_WORKER_BUNDLE", fixtureBundlePath);
  vi.resetModules();
  outputs = (await pulumi.runtime.runInPulumiStack(async () => {
    pulumi.runtime.registerStackTransformation(mocks.transformation);
    return await import("../../infra/index.ts");
  })) as Record<string, unknown>;
  vi.unstubAllEnvs();
});

describe("a BYOK gateway", () => {
  it("gets one store and one ai_gateway-scoped secret per provider, named as the gateway looks it up", () => {
    expect(recorder.named("byok")).toMatchObject({ type: "stepwise:index:Byok", parent: "stack" });
    expect(recorder.named("byok-store")).toMatchObject({
      type: "cloudflare:index/secretsStore:SecretsStore",
      parent: "byok",
      inputs: { accountId: "0123456789abcdef0123456789abcdef", name: "stepwise" },
    });
    for (const [provider, key] of Object.entries(byokKeys)) {
      const secret = recorder.named(`byok-byok-gw-${provider}`);
      expect(secret.type).toBe("cloudflare:index/secretsStoreSecret:SecretsStoreSecret");
      expect(secret.parent).toBe("byok");
      expect(secret.inputs).toEqual({
        accountId: "0123456789abcdef0123456789abcdef",
        storeId: "byok-store-id",
        name: `byok-gw_${provider}_default`,
        scopes: ["ai_gateway"],
        value: key,
        comment: `${provider} key for AI Gateway byok-gw (managed by Stepwise)`,
      });
      expect(secret.secretInputs).toEqual(["value"]);
    }
  });

  it("lists each stored key in a provider config of its gateway, with the API token", () => {
    for (const provider of Object.keys(byokKeys)) {
      const config = recorder.named(`byok-gw-byok-${provider}`);
      expect(config).toMatchObject({
        type: "pulumi-nodejs:dynamic/stepwise:ByokProviderConfig",
        parent: "byok-gw",
        inputs: {
          accountId: "0123456789abcdef0123456789abcdef",
          gatewayId: "byok-gw",
          providerSlug: provider,
          alias: "default",
          defaultConfig: true,
          secretId: `byok-byok-gw-${provider}-id`,
          apiToken: "cloudflare-token-test",
        },
      });
      expect(config.secretInputs).toContain("apiToken");
    }
    expect(
      recorder.ofType("cloudflare:index/aiGatewayDynamicRouting:AiGatewayDynamicRouting"),
    ).toHaveLength(1);
  });

  it("points only the BYOK gateway at the store", () => {
    expect(recorder.named("byok-gw-gateway").inputs.storeId).toBe("byok-store-id");
    expect(recorder.named("plain-gw-gateway").inputs).not.toHaveProperty("storeId");
    expect(outputs.secretsStoreId).toBe("byok-store-id");
  });

  it("never shows a provider key in plain text, and reports the Worker URL", () => {
    for (const resource of recorder.resources) {
      const plain = Object.entries(resource.inputs).filter(
        ([key]) => !resource.secretInputs.includes(key),
      );
      for (const key of Object.values(byokKeys)) expect(JSON.stringify(plain)).not.toContain(key);
    }
    for (const key of Object.values(byokKeys)) expect(JSON.stringify(outputs)).not.toContain(key);
    expect(outputs.workerUrl).toBe("https://stepwise-keys.acme.workers.dev");
  });
});

describe("buildStack with an existing Secrets Store", () => {
  it("uses it instead of creating one, and the secret outputs stay secret", async () => {
    const mocks = await installMocks("byok-existing");
    const config = parseConfig(
      Object.fromEntries(
        Object.entries(stack).map(([key, value]) => [key.slice("stepwise:".length), value]),
      ),
    );

    const built = buildStack(config, {
      secrets: {
        rotateToken: pulumi.secret("rotate-token-test"),
        byokKeys: {
          anthropic: pulumi.secret(byokKeys.anthropic),
          openai: pulumi.secret(byokKeys.openai),
        },
      },
      workerBundlePath: fixtureBundlePath,
      secretsStoreId: "existing-store-0001",
    });
    await promiseOf(built.outputs.secretsStoreId as pulumi.Output<string>);
    await settle();

    expect(mocks.recorder.ofType("cloudflare:index/secretsStore:SecretsStore")).toEqual([]);
    expect(mocks.recorder.named("byok-byok-gw-openai").inputs.storeId).toBe("existing-store-0001");
    expect(mocks.recorder.named("byok-gw-gateway").inputs.storeId).toBe("existing-store-0001");
    const secret = built.byok?.secrets[0] as SecretsStoreSecret;
    expect(await pulumi.isSecret(secret.value)).toBe(true);
    expect(await pulumi.isSecret(built.keyVault?.script.bindings as pulumi.Output<unknown>)).toBe(
      true,
    );
  });

  it("refuses to start without a key for a BYOK provider, naming the command that sets it", async () => {
    const mocks = await installMocks("byok-missing");
    const config = parseConfig(
      Object.fromEntries(
        Object.entries(stack).map(([key, value]) => [key.slice("stepwise:".length), value]),
      ),
    );

    const build = () =>
      buildStack(config, {
        secrets: {
          rotateToken: pulumi.secret("rotate"),
          byokKeys: { anthropic: pulumi.secret("k") },
        },
        workerBundlePath: fixtureBundlePath,
      });

    expect(build).toThrow(
      "byokKeys.openai: a gateway keeps openai's key in Secrets Store (byok): pulumi config set --secret --path 'stepwise:byokKeys.openai' <key>",
    );
    expect(mocks.recorder.resources).toEqual([]);
  });

  it("refuses a dynamic route Cloudflare would not run, before any resource", async () => {
    const mocks = await installMocks("byok-undeployable");
    const config = parseConfig({
      accountId: "0123456789abcdef0123456789abcdef",
      gateways: [{ id: "open", routes: { default: [{ provider: "groq", model: "llama" }] } }],
      keys: { providers: ["groq"] },
    });
    expect(() => buildStack(config, { workerBundlePath: fixtureBundlePath })).toThrow(
      /it would not work on Cloudflare[\s\S]*gateways\[0\]\.routes\.default: route "default" is deployed as the dynamic route dynamic\/default, but gateway "open" is not authenticated/,
    );
    expect(mocks.recorder.resources).toEqual([]);
  });
});
