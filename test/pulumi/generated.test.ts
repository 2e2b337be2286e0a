/**
 * `buildStack` over generated configs: every gateway, route and BYOK key becomes the resources it
 * should, under the right parent, and each deployed route graph falls back in the route's order.
 */
import * as pulumi from "@pulumi/pulumi";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseConfig, type RouteConfig, type StepwiseConfig } from "../../src/config/index.ts";
import { routeGraphHash, toPulumiElements } from "../../src/pulumi/dynamic-route.ts";
import { gatewaySettings } from "../../src/pulumi/gateway-settings.ts";
import { buildStack } from "../../src/pulumi/stack.ts";
import { compileDynamicRoute } from "../../src/routes/index.ts";
import { fixtureBundlePath, installMocks, promiseOf, type Recorder, settle } from "./helpers.ts";

const providers = ["openai", "anthropic", "groq", "mistral", "deepseek", "workers-ai"] as const;

const stepArbitrary = fc.record(
  {
    provider: fc.constantFrom(...providers),
    model: fc.constantFrom("model-a", "model-b", "model-c"),
    timeoutMs: fc.integer({ min: 100, max: 60_000 }),
    retries: fc.integer({ min: 0, max: 4 }),
  },
  { requiredKeys: ["provider", "model"] },
);

const routeArbitrary = fc.uniqueArray(stepArbitrary, {
  minLength: 1,
  maxLength: 4,
  selector: (step) => `${step.provider}/${step.model}`,
});

const gatewayArbitrary = fc.record(
  {
    id: fc.stringMatching(/^gw[a-z0-9]{1,6}$/),
    authentication: fc.boolean(),
    cache: fc.record({
      ttl: fc.constantFrom(0, 60, 300, 86_400),
      invalidateOnUpdate: fc.boolean(),
    }),
    rateLimit: fc.record({
      limit: fc.integer({ min: 1, max: 10_000 }),
      interval: fc.integer({ min: 1, max: 3600 }),
      technique: fc.constantFrom("fixed", "sliding"),
    }),
    retries: fc.record({
      maxAttempts: fc.integer({ min: 1, max: 5 }),
      delayMs: fc.integer({ min: 0, max: 5000 }),
      backoff: fc.constantFrom("constant", "linear", "exponential"),
    }),
    spendLimits: fc.array(
      fc.record({
        limit: fc.integer({ min: 0, max: 500 }),
        windowSeconds: fc.constantFrom(60, 3600),
      }),
      { maxLength: 2 },
    ),
    byok: fc.record({ providers: fc.uniqueArray(fc.constantFrom(...providers), { minLength: 1 }) }),
    routes: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), routeArbitrary, {
      minKeys: 1,
      maxKeys: 3,
    }),
  },
  { requiredKeys: ["id", "routes"] },
);

const configArbitrary = fc
  .record({
    gateways: fc.uniqueArray(gatewayArbitrary, {
      minLength: 1,
      maxLength: 3,
      selector: (g) => g.id,
    }),
    workersDevSubdomain: fc.option(fc.constantFrom("acme", "team-7"), { nil: undefined }),
  })
  .map(({ gateways, workersDevSubdomain }) =>
    parseConfig({
      accountId: "0123456789abcdef0123456789abcdef",
      // A route is dynamic only where Cloudflare would run it (authenticated, keys stored);
      // the others are universal-only, as `stepwise validate` requires.
      gateways: gateways.map((gateway) => ({
        ...gateway,
        routes: Object.fromEntries(
          Object.entries(gateway.routes).map(([name, steps]) => [
            name,
            { steps, dynamic: runsOnCloudflare(gateway, steps) },
          ]),
        ),
      })),
      keys: { providers: [...providers] },
      worker: workersDevSubdomain === undefined ? {} : { workersDevSubdomain },
    }),
  );

function runsOnCloudflare(
  gateway: { authentication?: boolean; byok?: { providers: string[] } },
  steps: readonly { provider: string }[],
): boolean {
  const stored = gateway.byok?.providers ?? [];
  return gateway.authentication === true && steps.every((step) => stored.includes(step.provider));
}

/** Follows a deployed graph from start through `fallback` edges: the order calls are tried in. */
function fallbackOrder(elements: readonly Record<string, unknown>[]): unknown[] {
  const byId = new Map(elements.map((element) => [element.id as string, element]));
  const outputsOf = (id: string) =>
    (byId.get(id)?.outputs ?? {}) as Record<string, { elementId: string } | undefined>;
  const tried: unknown[] = [];
  let current = outputsOf("start").next?.elementId;
  while (current !== undefined && byId.get(current)?.type === "model") {
    expect(outputsOf(current).success?.elementId).toBe("end");
    tried.push(byId.get(current)?.properties);
    current = outputsOf(current).fallback?.elementId;
  }
  expect(current).toBe("end");
  return tried;
}

function expectedModelProperties(route: RouteConfig): unknown[] {
  return route.steps.map((step) => ({
    aiGatewayDynamicRoutingProvider: step.provider,
    model: step.model,
    ...(step.timeoutMs === undefined ? {} : { timeout: step.timeoutMs }),
    ...(step.retries === undefined ? {} : { retries: step.retries }),
  }));
}

async function deploy(config: StepwiseConfig): Promise<Recorder> {
  const { recorder, transformation } = await installMocks("generated");
  const byokKeys = Object.fromEntries(
    providers.map((provider) => [provider, pulumi.secret(`key-${provider}`)]),
  );
  const stack = buildStack(config, {
    secrets: { rotateToken: pulumi.secret("rotate-token"), byokKeys },
    workerBundlePath: fixtureBundlePath,
    resourceOptions: { transformations: [transformation] },
  });
  await promiseOf(
    pulumi.all([
      ...Object.values(stack.outputs.gateways).map((gateway) => gateway.universalUrl),
      stack.outputs.kvNamespaceId ?? "",
    ]),
  );
  await settle();
  return recorder;
}

describe("buildStack over generated configs", () => {
  it("declares each gateway, route and key under its component, routes in fallback order", async () => {
    await fc.assert(
      fc.asyncProperty(configArbitrary, async (config) => {
        const recorder = await deploy(config);
        const byokGateways = config.gateways.filter((gateway) => gateway.byok);
        const byokPairs = byokGateways.flatMap((gateway) =>
          (gateway.byok?.providers ?? []).map((provider) => ({ gateway: gateway.id, provider })),
        );

        for (const gateway of config.gateways) {
          expect(recorder.named(gateway.id)).toMatchObject({
            type: "stepwise:index:Gateway",
            parent: "stack",
          });
          const aiGateway = recorder.named(`${gateway.id}-gateway`);
          expect(aiGateway.type).toBe("cloudflare:index/aiGateway:AiGateway");
          expect(aiGateway.parent).toBe(gateway.id);
          expect(aiGateway.inputs).toEqual({
            accountId: config.accountId,
            ...gatewaySettings(gateway),
            ...(gateway.byok ? { storeId: "byok-store-id" } : {}),
          });
          for (const [name, route] of Object.entries(gateway.routes)) {
            if (route.dynamic === false) {
              expect(() => recorder.named(`${gateway.id}-route-${name}`)).toThrow();
              continue;
            }
            const resource = recorder.named(`${gateway.id}-route-${name}`);
            const compiled = compileDynamicRoute(route);
            expect(resource.type).toBe(
              "cloudflare:index/aiGatewayDynamicRouting:AiGatewayDynamicRouting",
            );
            expect(resource.parent).toBe(gateway.id);
            expect(resource.inputs).toMatchObject({ gatewayId: gateway.id, name });
            expect(resource.inputs.elements).toEqual(toPulumiElements(compiled));
            expect(resource.options.replacementTrigger).toBe(routeGraphHash(compiled));
            expect(fallbackOrder(resource.inputs.elements as Record<string, unknown>[])).toEqual(
              expectedModelProperties(route),
            );
          }
        }

        for (const { gateway, provider } of byokPairs) {
          const secret = recorder.named(`byok-${gateway}-${provider}`);
          expect(secret.type).toBe("cloudflare:index/secretsStoreSecret:SecretsStoreSecret");
          expect(secret.parent).toBe("byok");
          expect(secret.inputs).toMatchObject({
            name: `${gateway}_${provider}_default`,
            scopes: ["ai_gateway"],
            storeId: "byok-store-id",
            value: `key-${provider}`,
          });
          expect(secret.secretInputs).toContain("value");
          expect(recorder.named(`${gateway}-byok-${provider}`)).toMatchObject({
            parent: gateway,
            inputs: { gatewayId: gateway, providerSlug: provider, secretId: `${secret.name}-id` },
          });
        }

        const routeCount = config.gateways.reduce(
          (sum, g) => sum + Object.values(g.routes).filter((route) => route.dynamic).length,
          0,
        );
        // The Byok component and its store, a secret and a provider config per stored key.
        const byokCount = byokPairs.length > 0 ? 2 + 2 * byokPairs.length : 0;
        expect(recorder.resources).toHaveLength(
          2 * config.gateways.length + routeCount + 5 + byokCount,
        );
        const urns = recorder.resources.map((resource) => `${resource.type}::${resource.name}`);
        expect(new Set(urns).size).toBe(urns.length);
      }),
      { numRuns: 8, seed: 20_260_401 },
    );
  });
});
