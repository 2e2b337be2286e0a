/**
 * The route graphs the program deploys, run on the emulator: each graph is taken from the
 * Pulumi inputs (converted back to the API spelling), put on the emulated gateway the way Pulumi
 * replaces a route (delete, then create with the same name), and called through `dynamic/<route>`
 * while the mock providers fail the first k steps of the chain the call takes (a policy route's:
 * the one its policy gives a call without metadata). The call is served by step k, after trying
 * the steps before it in the chain's order.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, type StepwiseConfig } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { buildStack } from "../../src/pulumi/stack.ts";
import { choosePolicyChain, type RouteElement } from "../../src/routes/index.ts";
import {
  devStackByokKeys,
  fixtureBundlePath,
  installMocks,
  promiseOf,
  type Recorder,
  repoRoot,
  settle,
} from "./helpers.ts";

/** Pulumi's element spelling → the API's (the inverse of `toPulumiElements`). */
function toApiElements(elements: readonly Record<string, unknown>[]): RouteElement[] {
  return elements.map((element) => {
    const { aiGatewayDynamicRoutingProvider, conditions, ...rest } = (element.properties ??
      {}) as Record<string, unknown>;
    const properties = {
      ...(aiGatewayDynamicRoutingProvider === undefined
        ? {}
        : { provider: aiGatewayDynamicRoutingProvider }),
      ...(conditions === undefined ? {} : { conditions: JSON.parse(conditions as string) }),
      ...rest,
    };
    return {
      id: element.id as string,
      type: element.type as RouteElement["type"],
      outputs: element.outputs as RouteElement["outputs"],
      ...(element.properties === undefined ? {} : { properties }),
    };
  });
}

async function rest(
  emulator: Emulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${emulator.restUrl}/accounts/${emulator.accountId}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${emulator.gatewayToken}`,
      "content-type": "application/json",
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as { success: boolean; result?: unknown; data?: unknown };
  expect(json.success, `${method} ${path}`).toBe(true);
  return json.result ?? json.data;
}

/** Replaces a route the way the program's `deleteBeforeReplace` does, with Pulumi's graph. */
async function deployRoute(
  emulator: Emulator,
  gatewayId: string,
  name: string,
  elements: RouteElement[],
): Promise<void> {
  const listed = (await rest(emulator, "GET", `/ai-gateway/gateways/${gatewayId}/routes`)) as {
    routes: { id: string; name: string }[];
  };
  for (const route of listed.routes.filter((entry) => entry.name === name)) {
    await rest(emulator, "DELETE", `/ai-gateway/gateways/${gatewayId}/routes/${route.id}`);
  }
  await rest(emulator, "POST", `/ai-gateway/gateways/${gatewayId}/routes`, { name, elements });
}

let config: StepwiseConfig;
let recorder: Recorder;
let emulator: Emulator;
const draw = 0.5;

beforeAll(async () => {
  ({ config } = await loadConfig({ stack: "dev", cwd: repoRoot }));
  ({ recorder } = await installMocks("dev"));
  const stack = buildStack(config, {
    secrets: { rotateToken: pulumi.secret("rotate"), byokKeys: devStackByokKeys },
    workerBundlePath: fixtureBundlePath,
  });
  await promiseOf(stack.outputs.kvNamespaceId as pulumi.Output<string>);
  await settle();
  emulator = await startEmulator({ config, sleep: async () => {}, random: () => draw });
});

afterAll(async () => {
  await emulator?.close();
});

describe("the deployed route graphs on the emulator", () => {
  it("fall back in each route's order: with the first k steps down, step k answers", async () => {
    for (const gateway of config.gateways) {
      for (const [name, route] of Object.entries(gateway.routes)) {
        if (route.dynamic === false) continue;
        const inputs = recorder.named(`${gateway.id}-route-${name}`).inputs;
        // AiGatewayDynamicRouting's elements, or a split route's in the API's spelling.
        const elements =
          typeof inputs.elementsJson === "string"
            ? (JSON.parse(inputs.elementsJson) as RouteElement[])
            : toApiElements(inputs.elements as Record<string, unknown>[]);
        await deployRoute(emulator, gateway.id, name, elements);
        // A call without metadata takes the chain the policy gives it (every chain, for a route
        // without one); the emulator's split draw is the one given here.
        const steps = choosePolicyChain(route, { metadata: {}, random: () => draw }).steps;

        for (let down = 0; down < steps.length; down++) {
          const failing = steps.slice(0, down);
          emulator.mocks?.setFaults({
            rules: failing.map((step) => ({
              provider: step.provider,
              model: step.model,
              kind: "unavailable" as const,
            })),
          });
          const before = emulator.mocks?.attempts.length ?? 0;

          const response = await fetch(`${emulator.compatUrl(gateway.id)}/chat/completions`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              authorization: "Bearer sk-test-provider-key",
              "cf-aig-authorization": `Bearer ${emulator.gatewayToken}`,
              // The gateway caches; every call here must reach the providers.
              "cf-aig-skip-cache": "true",
            },
            body: JSON.stringify({
              model: `dynamic/${name}`,
              messages: [{ role: "user", content: "hi" }],
            }),
          });

          const serving = steps[down];
          const where = `${gateway.id}/${name} with ${down} step(s) down`;
          expect(response.status, where).toBe(200);
          expect(response.headers.get("cf-aig-provider"), where).toBe(serving?.provider);
          expect(response.headers.get("cf-aig-model"), where).toBe(serving?.model);
          await response.arrayBuffer();
          // Upstream calls in order: each failing step (retried as its node or the gateway says),
          // then the one that answered; never a later step, never out of order.
          const tried = (emulator.mocks?.attempts ?? [])
            .slice(before)
            .map((attempt) => `${attempt.provider}/${attempt.model}`)
            .filter((step, index, all) => index === 0 || all[index - 1] !== step);
          expect(tried, where).toEqual(
            steps.slice(0, down + 1).map((step) => `${step.provider}/${step.model}`),
          );
        }
      }
    }
  }, 60_000);
});
