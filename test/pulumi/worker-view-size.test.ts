/**
 * The companion Worker's `STEPWISE_CONFIG` is its view of the config (`workerViewText`), not the
 * whole config: a stack several times the size of the dev stack's deploys as long as what the
 * Worker reads fits Cloudflare's 5 KB variable limit, and what the Worker reads over the limit
 * stops the deploy (and the local system) before any resource, naming the part to trim.
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ConfigError,
  loadConfig,
  maxWorkerVariableBytes,
  parseConfig,
  parseWorkerView,
  type StepwiseConfig,
  workerView,
} from "../../src/config/index.ts";
import { startLocalSystem } from "../../src/demo/local-system.ts";
import { buildStack } from "../../src/pulumi/stack.ts";
import {
  devStackByokKeys,
  fixtureBundlePath,
  installMocks,
  promiseOf,
  type Recorder,
  repoRoot,
  settle,
} from "./helpers.ts";

const secrets = {
  rotateToken: pulumi.secret("rotate"),
  gatewayToken: pulumi.secret("gateway"),
  byokKeys: devStackByokKeys,
};

const bytes = (text: string) => new TextEncoder().encode(text).byteLength;

/** The config as the old `STEPWISE_CONFIG` carried it: everything but the secrets. */
function wholeConfigBytes(config: StepwiseConfig): number {
  const { gatewayToken: _g, rotateToken: _r, byokKeys: _b, ...rest } = config;
  return bytes(JSON.stringify(rest));
}

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

let recorder: Recorder;
let devConfig: StepwiseConfig;

beforeAll(async () => {
  ({ recorder } = await installMocks("dev"));
  ({ config: devConfig } = await loadConfig({ stack: "dev", cwd: repoRoot }));
});

/**
 * The dev stack grown the way stacks grow: 30 more routes on each gateway (copies of its own,
 * policies and all), and a price catalogue of 150 models of providers no route or key uses, with
 * retirement notes. The Worker needs none of it.
 */
function grownConfig(): StepwiseConfig {
  const grown = structuredClone(devConfig);
  for (const gateway of grown.gateways) {
    const routes = Object.values(gateway.routes);
    for (let index = 0; index < 30; index++) {
      gateway.routes[`copy-${index}`] = structuredClone(routes[index % routes.length]!);
    }
  }
  for (let index = 0; index < 150; index++) {
    grown.models[`openrouter/vendor-${index}/chat-model-${index}-instruct`] = {
      input: 0.5 + index / 100,
      output: 1.5 + index / 100,
      retires: { date: "2099-01-01", replacement: `openrouter/vendor-${index}/chat-model-next` },
    };
  }
  return parseConfig(grown);
}

describe("the Worker's view of a large stack", () => {
  it("deploys a config several times the dev stack's when the Worker does not read the growth", async () => {
    const config = grownConfig();
    expect(wholeConfigBytes(config)).toBeGreaterThan(5 * wholeConfigBytes(devConfig));

    const stack = buildStack(config, { secrets, workerBundlePath: fixtureBundlePath });
    await promiseOf(stack.outputs.kvNamespaceId as pulumi.Output<string>);
    await settle();

    const bindings = recorder.named("key-vault-worker").inputs.bindings as {
      name: string;
      text?: string;
    }[];
    const text = bindings.find((binding) => binding.name === "STEPWISE_CONFIG")?.text ?? "";
    expect(bytes(text)).toBeLessThanOrEqual(maxWorkerVariableBytes);
    // The same view the dev stack gets: the copies send the same models, the catalogue's
    // providers are never served, and retirement notes are not the Worker's business.
    expect(parseWorkerView(text)).toEqual(workerView(devConfig));
    expect(text).not.toContain("openrouter");
    expect(text).not.toContain("copy-");
  });

  it("stops the deploy before any resource when what the Worker reads passes the limit, naming the fix", () => {
    const config = structuredClone(devConfig);
    // 150 fine-tuned models of a provider the Worker holds keys for: it prices their calls.
    for (let index = 0; index < 150; index++) {
      config.models[`openai/ft:gpt-4o-mini:acme:support-${index}`] = { input: 0.3, output: 1.2 };
    }
    const before = recorder.resources.length;

    const build = () =>
      buildStack(parseConfig(config), {
        secrets,
        source: "Pulumi.dev.yaml",
        workerBundlePath: fixtureBundlePath,
      });

    expect(thrownBy(build)).toSatisfy(
      (error) => ConfigError.isInstance(error) && error.code === "config_not_deployable",
    );
    expect(build).toThrow(
      /^Pulumi\.dev\.yaml: 1 problem in the Stepwise config \(it would not work on Cloudflare\)\n {2}✖ models: the companion Worker's view of this config \(its STEPWISE_CONFIG variable\) is \d+ bytes, over the 5000 a Worker variable may hold \(Cloudflare Workers limits: 5 KB\); largest parts in bytes: models \d+, .*To fit, drop the prices of models you no longer call/,
    );
    expect(recorder.resources.length).toBe(before);
  });

  it("is refused the same way by the local system, before it starts anything", async () => {
    const config = structuredClone(devConfig);
    for (let index = 0; index < 150; index++) {
      config.models[`anthropic/claude-custom-${index}`] = { input: 3, output: 15 };
    }

    const start = startLocalSystem({ config: parseConfig(config) });

    await expect(start).rejects.toSatisfy((error) => ConfigError.isInstance(error));
    await expect(start).rejects.toThrow(/over the 5000 a Worker variable may hold/);
  });
});
