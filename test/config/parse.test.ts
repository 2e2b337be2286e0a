import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config/index.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const minimal = {
  accountId,
  gateways: [{ id: "chat", routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } }],
  keys: { providers: ["openai"] },
};

function problemsOf(input: unknown): { path: string; message: string }[] {
  try {
    parseConfig(input);
  } catch (error) {
    if (error instanceof ConfigError)
      return error.issues.map(({ path, message }) => ({ path, message }));
    throw error;
  }
  throw new Error("expected the config to be rejected");
}

describe("parseConfig", () => {
  it("fills in the documented defaults for a minimal config", () => {
    const config = parseConfig(minimal);
    const gateway = config.gateways[0]!;
    expect(gateway.authentication).toBe(false);
    expect(gateway.cache).toEqual({ ttl: 0, invalidateOnUpdate: false, shareBetweenApps: false });
    expect(gateway.logs).toEqual({ collect: true, strategy: "STOP_INSERTING" });
    expect(gateway.rateLimit).toBeUndefined();
    expect(gateway.routes.default).toEqual({
      steps: [{ provider: "openai", model: "gpt-4o-mini" }],
    });
    expect(config.keys).toEqual({
      providers: ["openai"],
      maxAgeDays: 90,
      historyHours: 24,
      graceSeconds: 60,
      caps: {},
    });
    expect(config.worker.healthProbe).toEqual({
      enabled: false,
      slowMs: 5000,
      slowMsPerModel: {},
      probationSeconds: 900,
    });
    expect(config.worker.name).toBe("stepwise-keys");
    expect(config.worker.gatewayUrl).toBe("https://gateway.ai.cloudflare.com");
    expect(config.models).toEqual({});
  });

  it("accepts a route written as { steps, deadlineMs } as well as a bare list", () => {
    const config = parseConfig({
      ...minimal,
      gateways: [
        {
          id: "chat",
          routes: {
            default: {
              deadlineMs: 9000,
              steps: [{ provider: "openai", model: "gpt-4o-mini", timeoutMs: 5000 }],
            },
          },
        },
      ],
    });
    expect(config.gateways[0]!.routes.default!.deadlineMs).toBe(9000);
  });

  it.each([
    [0, true],
    [60, true],
    [2_592_000, true],
    [59, false],
    [2_592_001, false],
    [1.5, false],
  ])("cache ttl %d accepted: %s", (ttl, accepted) => {
    const input = { ...minimal, gateways: [{ ...minimal.gateways[0], cache: { ttl } }] };
    if (accepted) expect(parseConfig(input).gateways[0]!.cache.ttl).toBe(ttl);
    else
      expect(problemsOf(input).map((problem) => problem.path)).toEqual(["gateways[0].cache.ttl"]);
  });

  it.each(["chat-prod", "a", "x".repeat(64), "0-9"])("accepts gateway id %s", (id) => {
    expect(
      parseConfig({ ...minimal, gateways: [{ ...minimal.gateways[0], id }] }).gateways[0]!.id,
    ).toBe(id);
  });

  it.each(["Chat", "chat_prod", "", "x".repeat(65), "chat prod"])("rejects gateway id %j", (id) => {
    const problems = problemsOf({ ...minimal, gateways: [{ ...minimal.gateways[0], id }] });
    expect(problems).toEqual([
      {
        path: "gateways[0].id",
        message: expect.stringContaining("lowercase letters, digits and hyphens"),
      },
    ]);
  });

  it("accepts custom-<slug> providers and rejects unknown ones with the list of known slugs", () => {
    const custom = parseConfig({
      ...minimal,
      gateways: [{ id: "chat", routes: { default: [{ provider: "custom-acme", model: "m" }] } }],
      keys: { providers: ["custom-acme"] },
    });
    expect(custom.gateways[0]!.routes.default!.steps[0]!.provider).toBe("custom-acme");
    const problems = problemsOf({
      ...minimal,
      gateways: [{ id: "chat", routes: { default: [{ provider: "acme", model: "m" }] } }],
    });
    expect(problems[0]).toEqual({
      path: "gateways[0].routes.default.steps[0].provider",
      message: expect.stringMatching(/unknown provider "acme".*openai, anthropic.*custom-<slug>/),
    });
  });

  it("reports every problem at once: field errors and cross-field errors together", () => {
    const problems = problemsOf({
      accountId: "nope",
      gateways: [
        {
          id: "chat",
          retries: { maxAttempts: 6 },
          routes: {
            default: {
              deadlineMs: 1000,
              steps: [
                { provider: "openai", model: "gpt-4o-mini", timeoutMs: 2000 },
                { provider: "openai", model: "gpt-4o-mini" },
                { provider: "groq", model: "llama" },
              ],
            },
          },
        },
        { id: "chat", routes: { other: [{ provider: "openai", model: "gpt-4o", colour: "red" }] } },
      ],
      keys: { providers: ["openai"] },
    });
    expect(problems.map((problem) => problem.path).sort()).toEqual(
      [
        "accountId",
        "gateways[0].retries.maxAttempts",
        "gateways[0].routes.default.steps[0].timeoutMs",
        "gateways[0].routes.default.steps[1].model",
        "gateways[0].routes.default.steps[2].provider",
        "gateways[1].id",
        "gateways[1].routes.other.steps[0].colour",
      ].sort(),
    );
    const byPath = Object.fromEntries(problems.map((problem) => [problem.path, problem.message]));
    expect(byPath["gateways[0].routes.default.steps[2].provider"]).toMatch(
      /add it to keys.providers/,
    );
    expect(byPath["gateways[1].id"]).toMatch(/already used by gateways\[0\]/);
    expect(byPath["gateways[1].routes.other.steps[0].colour"]).toMatch(/unknown field "colour"/);
  });

  it("treats a provider held by the gateway (BYOK) as having a key", () => {
    const config = parseConfig({
      accountId,
      gateways: [
        {
          id: "chat",
          byok: { providers: ["anthropic"] },
          routes: { default: [{ provider: "anthropic", model: "claude" }] },
        },
      ],
    });
    expect(config.gateways[0]!.byok?.providers).toEqual(["anthropic"]);
  });

  it("rejects a route with no steps and a gateway with no routes", () => {
    const problems = problemsOf({
      ...minimal,
      gateways: [
        { id: "a", routes: { empty: [] } },
        { id: "b", routes: {} },
      ],
    });
    expect(problems.map((problem) => problem.path)).toEqual([
      "gateways[0].routes.empty.steps",
      "gateways[1].routes",
    ]);
  });

  it("accepts Pulumi secure values for secrets and never needs their plaintext", () => {
    const config = parseConfig({
      ...minimal,
      rotateToken: { secure: "v1:abc" },
      gatewayToken: "plain-token",
    });
    expect(config.rotateToken).toEqual({ secure: "v1:abc" });
    expect(config.gatewayToken).toBe("plain-token");
  });

  it("names the source in the error message", () => {
    expect(() => parseConfig({}, { source: "Pulumi.prod.yaml" })).toThrow(
      /^Pulumi\.prod\.yaml: 2 problems/,
    );
  });
});
