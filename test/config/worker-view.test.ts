/**
 * The companion Worker's view of a config: only what the Worker reads (least privilege), never a
 * secret, and a parse that names the bad field and the fix when the variable is wrong.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  ConfigError,
  findWorkerViewProblems,
  loadConfig,
  parseConfig,
  parseWorkerView,
  type StepwiseConfig,
  workerView,
  workerViewText,
} from "../../src/config/index.ts";
import { findConfigFindings } from "../../src/routes/index.ts";

const root = new URL("../..", import.meta.url).pathname;
let devConfig: StepwiseConfig;

beforeAll(async () => {
  ({ config: devConfig } = await loadConfig({ stack: "dev", cwd: root }));
});

/** The error `run` throws, checked to be a `ConfigError`. */
function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("workerView", () => {
  it("keeps what the Worker reads and nothing else: no secret, no gateway settings, no routes", () => {
    const config = parseConfig({
      ...devConfig,
      rotateToken: "rotate-secret-value",
      gatewayToken: "gateway-secret-value",
      secretsStoreToken: "store-secret-value",
      analyticsApiToken: "analytics-secret-value",
      byokKeys: { anthropic: "byok-secret-value" },
    });

    const view = workerView(config);
    const text = workerViewText(config);

    expect(text).not.toMatch(/secret-value/);
    expect(Object.keys(view).sort()).toEqual(
      ["accountId", "gateways", "keys", "models", "probes", "version", "worker"].sort(),
    );
    // A gateway's cache TTL only where it caches: the Worker scopes cached answers to the app.
    expect(view.gateways).toEqual([
      { id: "chat-prod", cache: { ttl: 300 } },
      {
        id: "chat-dynamic",
        byok: { providers: ["anthropic", "openai", "workers-ai"] },
        cache: { ttl: 300 },
      },
      { id: "batch-dev", cache: { ttl: 3600 } },
    ]);
    expect(Object.keys(view.worker).sort()).toEqual(["appRateLimit", "gatewayUrl", "healthProbe"]);
    expect(view.models["openai/gpt-4o-mini"]).toEqual({ input: 0.15, output: 0.6 });
    // Every model a route sends, through the first gateway that sends it.
    expect(view.probes["chat-prod"]).toContain("anthropic/claude-sonnet-4-5");
    expect(Object.values(view.probes).flat()).toHaveLength(9);
    expect(parseWorkerView(text)).toEqual(view);
  });

  it("keeps prices only for providers the Worker can serve, without retirement notes", () => {
    const config = parseConfig({
      accountId: devConfig.accountId,
      gateways: [{ id: "g", routes: { r: [{ provider: "openai", model: "gpt-4o" }] } }],
      models: {
        "openai/gpt-4o": {
          input: 2.5,
          output: 10,
          retires: { date: "2099-01-01", replacement: "openai/gpt-5" },
        },
        "groq/llama": { input: 0.05, output: 0.08 },
        "mistral/mistral-large": { input: 2, output: 6 },
      },
      keys: { providers: ["openai", "groq"] },
    });

    expect(workerView(config).models).toEqual({
      "openai/gpt-4o": { input: 2.5, output: 10 },
      "groq/llama": { input: 0.05, output: 0.08 },
    });
  });

  it("is not size-checked for a config that deploys no Worker (no keys.providers)", () => {
    const models = Object.fromEntries(
      Array.from({ length: 300 }, (_, index) => [`openai/m-${index}`, { input: 1, output: 2 }]),
    );
    const config = parseConfig({
      accountId: devConfig.accountId,
      gateways: [
        {
          id: "g",
          authentication: true,
          byok: { providers: ["openai"] },
          routes: { r: [{ provider: "openai", model: "m-0" }] },
        },
      ],
      models,
    });
    expect(findWorkerViewProblems(config)).toEqual([]);

    const withWorker = parseConfig({ ...config, keys: { providers: ["openai"] } });
    // `stepwise validate` and the Pulumi preflight report it, at the part to trim.
    expect(findConfigFindings(withWorker, { now: 0 })).toContainEqual(
      expect.objectContaining({ severity: "error", path: ["models"] }),
    );
  });
});

describe("parseWorkerView", () => {
  it("refuses a whole Stepwise config, naming the fields that are not the Worker's and the fix", () => {
    const error = configErrorOf(() => parseWorkerView(JSON.stringify(devConfig)));

    expect(error.code).toBe("config_invalid");
    expect(error.message).toMatch(/^STEPWISE_CONFIG: \d+ problems in the Stepwise config/);
    expect(error.message).toContain("✖ version:");
    expect(error.message).toContain(
      "Bind workerViewText(config), as Pulumi and the local system do",
    );
    expect(error.issues.map((issue) => issue.path)).toContain("gateways[0]");
  });

  it("names a view of another version and a bad field by its path", () => {
    const view = JSON.parse(workerViewText(devConfig));
    view.version = 2;
    view.keys.caps.openai.rpm = 0;

    const error = configErrorOf(() => parseWorkerView(view));

    expect(error.issues.map((issue) => issue.path)).toEqual(["version", "keys.caps.openai.rpm"]);
    expect(error.issues[0]!.message).toContain(
      "deploy the Worker and its STEPWISE_CONFIG together",
    );
  });

  it("says how to set a variable that is not JSON", () => {
    const error = configErrorOf(() => parseWorkerView("{accountId:"));

    expect(error.message).toBe(
      "STEPWISE_CONFIG: 1 problem in the Stepwise config\n  ✖ (top level): is not valid JSON: set it to workerViewText(config), as Pulumi and the local system do",
    );
  });

  it("refuses probes through a gateway the view does not list", () => {
    const view = JSON.parse(workerViewText(devConfig));
    view.probes.elsewhere = ["openai/gpt-4o"];

    expect(configErrorOf(() => parseWorkerView(view)).issues).toEqual([
      expect.objectContaining({ path: "probes.elsewhere" }),
    ]);
  });
});
