import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfigText } from "../../src/config/index.ts";

const repoRoot = path.resolve(import.meta.dirname, "../..");
let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-config-"));
});

async function rejectionOf(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe("loadConfig", () => {
  it("loads the example dev stack: three gateways, routes of two to four steps, prices and keys", async () => {
    const { config, source } = await loadConfig({ stack: "dev", cwd: repoRoot });
    expect(source).toBe("Pulumi.dev.yaml");
    expect(config.gateways.map((gateway) => gateway.id)).toEqual([
      "chat-prod",
      "chat-dynamic",
      "batch-dev",
    ]);
    // The one gateway with dynamic routes stores its keys (BYOK), as Cloudflare requires.
    expect(config.gateways[1]!.byok?.providers).toEqual(["anthropic", "openai", "workers-ai"]);
    const routes = config.gateways.flatMap((gateway) => Object.values(gateway.routes));
    expect(routes.length).toBeGreaterThanOrEqual(3);
    for (const route of routes) expect(route.steps.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...routes.map((route) => route.steps.length))).toBe(4);
    expect(config.models["openai/gpt-4o-mini"]).toEqual({ input: 0.15, output: 0.6 });
    expect(config.rotateToken).toEqual({ secure: expect.stringMatching(/^v1:/) });
    expect(config.byokKeys?.openai).toEqual({ secure: expect.stringMatching(/^v1:/) });
  });

  it("reads only the stepwise: namespace of a stack file", async () => {
    const file = path.join(directory, "Pulumi.ns.yaml");
    await writeFile(
      file,
      [
        "config:",
        "  cloudflare:apiToken: { secure: v1:xyz }",
        "  aws:region: us-east-1",
        '  stepwise:accountId: "0123456789abcdef0123456789abcdef"',
        "  stepwise:keys: { providers: [openai] }",
        "  stepwise:gateways:",
        "    - id: one",
        "      routes: { default: [{ provider: openai, model: gpt-4o-mini }] }",
      ].join("\n"),
    );
    const { config } = await loadConfig({ stack: "ns", cwd: directory });
    expect(config.gateways[0]!.id).toBe("one");
  });

  it("loads a plain JSON config file", async () => {
    const file = path.join(directory, "gateways.json");
    await writeFile(
      file,
      JSON.stringify({
        accountId: "0123456789abcdef0123456789abcdef",
        keys: { providers: ["anthropic"] },
        gateways: [
          {
            id: "json-gw",
            routes: { default: [{ provider: "anthropic", model: "claude-sonnet-4-5" }] },
          },
        ],
      }),
    );
    const { config, source } = await loadConfig({ file: "gateways.json", cwd: directory });
    expect(source).toBe("gateways.json");
    expect(config.gateways[0]!.id).toBe("json-gw");
  });

  it("reports every mistake of a broken file with its path and line", async () => {
    const error = await rejectionOf(
      loadConfig({ file: "test/__fixtures__/config/Pulumi.broken.yaml", cwd: repoRoot }),
    );
    expect(error.code).toBe("config_invalid");
    expect(error.issues.length).toBeGreaterThanOrEqual(12);
    const cacheTtl = error.issues.find((issue) => issue.path === "gateways[0].cache.ttl");
    expect(cacheTtl).toEqual({
      path: "gateways[0].cache.ttl",
      line: 6,
      message: expect.stringContaining("between 60 and 2592000"),
    });
    expect(error.message).toMatch(
      /^test\/__fixtures__\/config\/Pulumi\.broken\.yaml: \d+ problems/,
    );
    const lines = error.issues.map((issue) => issue.line ?? 0);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  it("says how to fix a missing stack file", async () => {
    const error = await rejectionOf(loadConfig({ stack: "nope", cwd: directory }));
    expect(error.code).toBe("config_not_found");
    expect(error.message).toMatch(/Pulumi\.nope\.yaml.*ENOENT.*--stack/);
  });

  it("reports YAML syntax errors with a line", () => {
    try {
      parseConfigText("config:\n  stepwise:gateways: [\n", "bad.yaml");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe("config_unreadable");
      expect((error as ConfigError).issues[0]!.line).toBeGreaterThan(0);
    }
  });
});
