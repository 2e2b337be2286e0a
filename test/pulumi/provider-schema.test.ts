/**
 * Every `@pulumi/cloudflare` resource the program declares, over configs that reach every branch
 * (Worker, BYOK with a new or an existing store, gateway retries, log limits, spend limits, routes),
 * is checked against the provider's own type declarations: each input property at any depth and
 * each `ignoreChanges` name must be one the provider defines. Mocks alone would accept a
 * misspelt name; the provider would reject (or silently ignore) it.
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../src/config/index.ts";
import { buildStack } from "../../src/pulumi/stack.ts";
import {
  devStackByokKeys,
  fixtureBundlePath,
  installMocks,
  promiseOf,
  repoRoot,
  settle,
} from "./helpers.ts";
import { ProviderSchema } from "./provider-schema.ts";

interface Declared {
  readonly type: string;
  readonly name: string;
  readonly props: Record<string, unknown>;
  readonly ignoreChanges: readonly string[];
}

const declared: Declared[] = [];
let schema: ProviderSchema;

const everyBranch = parseConfig({
  accountId: "0123456789abcdef0123456789abcdef",
  gateways: [
    {
      id: "full",
      authentication: true,
      cache: { ttl: 300, invalidateOnUpdate: true },
      rateLimit: { limit: 10, interval: 60, technique: "sliding" },
      logs: { collect: true, limit: 100_000, strategy: "DELETE_OLDEST" },
      retries: { maxAttempts: 3, delayMs: 100, backoff: "linear" },
      spendLimits: [{ limit: 5, windowSeconds: 3600, providers: ["openai"], models: ["m"] }],
      byok: { providers: ["openai"] },
      routes: {
        default: [{ provider: "openai", model: "gpt-4o-mini", timeoutMs: 500, retries: 1 }],
      },
    },
    {
      id: "bare",
      routes: { default: { dynamic: false, steps: [{ provider: "groq", model: "llama" }] } },
    },
  ],
  keys: { providers: ["groq"] },
  worker: { workersDevSubdomain: "acme" },
});

beforeAll(async () => {
  await installMocks("schema");
  // Inherited by every child of the components: sees each resource's args and options.
  const record: pulumi.ResourceTransformation = (args) => {
    if (args.type.startsWith("cloudflare:")) {
      declared.push({
        type: args.type,
        name: args.name,
        props: args.props as Record<string, unknown>,
        ignoreChanges: args.opts.ignoreChanges ?? [],
      });
    }
    return undefined;
  };
  const resourceOptions = { transformations: [record] };
  const { config: dev } = await loadConfig({ stack: "dev", cwd: repoRoot });
  const builds = [
    buildStack(dev, {
      secrets: {
        rotateToken: pulumi.secret("rotate"),
        gatewayToken: pulumi.secret("gateway"),
        byokKeys: devStackByokKeys,
      },
      workerBundlePath: fixtureBundlePath,
      resourceOptions,
    }),
    buildStack(everyBranch, {
      secrets: { rotateToken: pulumi.secret("rotate"), byokKeys: { openai: "sk-test" } },
      workerBundlePath: fixtureBundlePath,
      secretsStoreId: "existing-store",
      resourceOptions,
    }),
  ];
  for (const built of builds) {
    await promiseOf(pulumi.all(Object.values(built.outputs.gateways).map((g) => g.universalUrl)));
  }
  await settle();
  // Reading the declarations takes a few seconds: once for the file.
  schema = new ProviderSchema([
    ...declared.map((resource) => resource.type),
    "cloudflare:index/workersScript:WorkersScript",
  ]);
  // Type-checks against @pulumi/cloudflare's declarations: seconds of CPU, far more on a busy machine.
}, 180_000);

describe("inputs checked against @pulumi/cloudflare's declarations", () => {
  it("covers every kind of resource the program declares", () => {
    expect(new Set(declared.map((resource) => resource.type))).toEqual(
      new Set([
        "cloudflare:index/aiGateway:AiGateway",
        "cloudflare:index/aiGatewayDynamicRouting:AiGatewayDynamicRouting",
        "cloudflare:index/secretsStore:SecretsStore",
        "cloudflare:index/secretsStoreSecret:SecretsStoreSecret",
        "cloudflare:index/workersKvNamespace:WorkersKvNamespace",
        "cloudflare:index/workersScript:WorkersScript",
        "cloudflare:index/workersCronTrigger:WorkersCronTrigger",
        "cloudflare:index/workersScriptSubdomain:WorkersScriptSubdomain",
      ]),
    );
  });

  it("uses only property names the provider defines, at any depth", () => {
    const problems = declared.flatMap((resource) =>
      schema
        .unknownProperties(resource.type, resource.props)
        .map((property) => `${resource.name} (${resource.type}): ${property}`),
    );
    expect(problems).toEqual([]);
  });

  it("ignores only changes to properties the provider defines", () => {
    const problems = declared.flatMap((resource) => {
      const known = new Set(schema.argsProperties(resource.type));
      return resource.ignoreChanges
        .filter((name) => !known.has(name))
        .map((name) => `${resource.name}: ignoreChanges "${name}"`);
    });
    expect(problems).toEqual([]);
    expect(declared.some((resource) => resource.ignoreChanges.includes("storeId"))).toBe(true);
  });

  it("would catch a misspelt name, nested or not", () => {
    expect(
      schema.unknownProperties("cloudflare:index/workersScript:WorkersScript", {
        accountId: "a",
        scriptName: "s",
        compatibilityFlag: ["nodejs_compat"],
        bindings: [{ name: "KEYS", type: "kv_namespace", namespaceID: "n" }],
      }),
    ).toEqual(["compatibilityFlag", "bindings[0].namespaceID"]);
    expect(schema.argsProperties("cloudflare:index/workersScript:WorkersScript")).toContain(
      "compatibilityFlags",
    );
  });
});
