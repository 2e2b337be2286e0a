/**
 * Routing policies through the real program, with Pulumi's mocks: a policy of conditions and a
 * budget is a `cloudflare.AiGatewayDynamicRouting` with exactly the elements Cloudflare gets, in
 * Pulumi's spelling (conditions as JSON text, `rate` with `key`, `limit`, `limitType`, `window`);
 * a policy with a split, which that resource cannot hold, is a `VersionedDynamicRoute` with the
 * API's spelling; a policy route kept universal-only deploys nothing. A step on a retired model
 * stops the program before any resource; one on a model retiring later is a warning.
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { parseConfig } from "../../src/config/index.ts";
import { buildStack } from "../../src/pulumi/stack.ts";
import { fixtureBundlePath, installMocks, type Recorder, stackConfig } from "./helpers.ts";

const steps = [{ provider: "openai", model: "gpt-4o-mini", timeoutMs: 8000 }];
const chains = {
  frontier: [{ provider: "anthropic", model: "claude-sonnet-4-5", retries: 2 }],
  economy: [{ provider: "openai", model: "gpt-4.1-nano" }],
};
const stack = {
  "stepwise:accountId": "0123456789abcdef0123456789abcdef",
  "stepwise:gateways": [
    {
      id: "policy-gw",
      authentication: true,
      byok: { providers: ["anthropic", "openai"] },
      routes: {
        tiered: {
          steps,
          chains,
          policy: [
            { when: { plan: ["free", "trial"] }, use: "economy" },
            {
              when: { tier: "complex", region: { not: "eu" } },
              use: "frontier",
              budget: { per: "user_id", requests: 20, windowSeconds: 60, over: "economy" },
            },
          ],
        },
        trial: { steps, chains, policy: [{ split: { frontier: 5, economy: 45 } }] },
        local: {
          dynamic: false,
          steps,
          chains,
          policy: [{ when: { plan: "free" }, use: "economy" }, { use: "frontier" }],
        },
      },
    },
  ],
};

let recorder: Recorder;
let outputs: Record<string, unknown>;

beforeAll(async () => {
  const mocks = await installMocks("policy");
  recorder = mocks.recorder;
  const { config, secretKeys } = stackConfig(stack, {
    "stepwise:byokKeys": JSON.stringify({ anthropic: "sk-ant-0", openai: "sk-oa-0" }),
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

const to = (elementId: string) => ({ elementId });

describe("a routing policy deployed by Pulumi", () => {
  it("sends conditions and a budget to AiGatewayDynamicRouting, in Pulumi's spelling", () => {
    const route = recorder.named("policy-gw-route-tiered");
    expect(route.type).toBe("cloudflare:index/aiGatewayDynamicRouting:AiGatewayDynamicRouting");
    expect(route.inputs).toEqual({
      accountId: "0123456789abcdef0123456789abcdef",
      gatewayId: "policy-gw",
      name: "tiered",
      elements: [
        { id: "start", type: "start", outputs: { next: to("rule-0") } },
        {
          id: "rule-0",
          type: "conditional",
          properties: { conditions: '{"metadata.plan":{"$in":["free","trial"]}}' },
          outputs: { true: to("economy-model-0"), false: to("rule-1") },
        },
        {
          id: "rule-1",
          type: "conditional",
          properties: {
            conditions:
              '{"$and":[{"metadata.region":{"$ne":"eu"}},{"metadata.tier":{"$eq":"complex"}}]}',
          },
          outputs: { true: to("rule-1-budget"), false: to("model-0") },
        },
        {
          id: "rule-1-budget",
          type: "rate",
          properties: { key: "metadata.user_id", limit: 20, limitType: "count", window: 60 },
          outputs: { success: to("frontier-model-0"), fallback: to("economy-model-0") },
        },
        {
          id: "economy-model-0",
          type: "model",
          properties: { aiGatewayDynamicRoutingProvider: "openai", model: "gpt-4.1-nano" },
          outputs: { success: to("end"), fallback: to("end") },
        },
        {
          id: "model-0",
          type: "model",
          properties: {
            aiGatewayDynamicRoutingProvider: "openai",
            model: "gpt-4o-mini",
            timeout: 8000,
          },
          outputs: { success: to("end"), fallback: to("end") },
        },
        {
          id: "frontier-model-0",
          type: "model",
          properties: {
            aiGatewayDynamicRoutingProvider: "anthropic",
            model: "claude-sonnet-4-5",
            retries: 2,
          },
          outputs: { success: to("end"), fallback: to("end") },
        },
        { id: "end", type: "end", outputs: {} },
      ],
    });
  });

  it("deploys a split through the route API, with the elements in the API's spelling", () => {
    const route = recorder.named("policy-gw-route-trial");
    expect(route.type).toBe("pulumi-nodejs:dynamic/stepwise:VersionedDynamicRoute");
    expect(route.inputs).toMatchObject({
      accountId: "0123456789abcdef0123456789abcdef",
      gatewayId: "policy-gw",
      name: "trial",
      apiToken: "cloudflare-token-test",
    });
    expect(route.secretInputs).toContain("apiToken");
    expect(JSON.parse(route.inputs.elementsJson as string)).toEqual([
      { id: "start", type: "start", outputs: { next: to("rule-0-split") } },
      {
        id: "rule-0-split",
        type: "percentage",
        outputs: {
          "45%": to("economy-model-0"),
          "5%": to("frontier-model-0"),
          else: to("model-0"),
        },
      },
      {
        id: "economy-model-0",
        type: "model",
        properties: { provider: "openai", model: "gpt-4.1-nano" },
        outputs: { success: to("end"), fallback: to("end") },
      },
      {
        id: "frontier-model-0",
        type: "model",
        properties: { provider: "anthropic", model: "claude-sonnet-4-5", retries: 2 },
        outputs: { success: to("end"), fallback: to("end") },
      },
      {
        id: "model-0",
        type: "model",
        properties: { provider: "openai", model: "gpt-4o-mini", timeout: 8000 },
        outputs: { success: to("end"), fallback: to("end") },
      },
      { id: "end", type: "end", outputs: {} },
    ]);
    // Created after the gateway's stored keys, like every dynamic route.
    expect(route.options.dependsOn).toHaveLength(2);
  });

  it("deploys nothing for a universal-only policy route, and exports both dynamic routes", () => {
    expect(() => recorder.named("policy-gw-route-local")).toThrow();
    expect((outputs.gateways as Record<string, { routes: unknown }>)["policy-gw"]!.routes).toEqual({
      tiered: { id: "policy-gw-route-tiered-id", model: "dynamic/tiered" },
      trial: { id: "policy-gw-route-trial-id", model: "dynamic/trial" },
    });
  });
});

describe("model churn in the Pulumi program", () => {
  const churned = (date: string) =>
    parseConfig({
      accountId: "0123456789abcdef0123456789abcdef",
      gateways: [
        {
          id: "churn",
          routes: {
            default: { dynamic: false, steps: [{ provider: "openai", model: "gpt-4o-mini" }] },
          },
        },
      ],
      keys: { providers: ["openai"] },
      models: {
        "openai/gpt-4o-mini": {
          input: 0.15,
          output: 0.6,
          retires: { date, replacement: "openai/gpt-4.1-mini" },
        },
      },
    });

  it("refuses a step on a retired model before any resource, naming the replacement", async () => {
    const mocks = await installMocks("policy-retired");
    expect(() =>
      buildStack(churned("2020-01-01"), {
        secrets: { rotateToken: pulumi.secret("rotate") },
        workerBundlePath: fixtureBundlePath,
      }),
    ).toThrow(
      /gateways\[0\]\.routes\.default\.steps\[0\]\.model: .*retired on 2020-01-01, so its calls fail: replace it with openai\/gpt-4\.1-mini/,
    );
    expect(mocks.recorder.resources).toEqual([]);
  });

  it("deploys a step on a model that retires later, with a warning", async () => {
    await installMocks("policy-retiring");
    const warn = vi.spyOn(pulumi.log, "warn").mockResolvedValue();
    try {
      buildStack(churned("2999-01-01"), {
        secrets: { rotateToken: pulumi.secret("rotate") },
        workerBundlePath: fixtureBundlePath,
      });
      expect(warn).toHaveBeenCalledWith(
        expect.stringMatching(
          /^gateways\[0\]\.routes\.default\.steps\[0\]\.model: .*retires on 2999-01-01 .*replace it with openai\/gpt-4\.1-mini before then$/,
        ),
      );
    } finally {
      warn.mockRestore();
    }
  });
});
