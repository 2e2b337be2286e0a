/**
 * The program runs the way `pulumi up` runs it: the Node.js language host starts
 * `node <runtime.options.nodeargs> node_modules/@pulumi/pulumi/cmd/run <main>` with the stack
 * config in `PULUMI_CONFIG` and `PULUMI_NODEJS_TYPESCRIPT` from `runtime.options.typescript`.
 * Here a fake engine on 127.0.0.1 stands in for the CLI, and `Pulumi.yaml` supplies the runtime
 * options, so this checks that the project file loads ESM TypeScript as written.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  devStackByokKeys,
  fixtureBundlePath,
  repoRoot,
  stackConfig,
  stackConfigFromFile,
} from "../pulumi/helpers.ts";
import { type FakeEngine, startFakeEngine } from "./fake-engine.ts";

interface ProjectFile {
  name: string;
  main: string;
  runtime: { name: string; options: { nodeargs?: string; typescript?: boolean } };
}

const project = parse(readFileSync(path.join(repoRoot, "Pulumi.yaml"), "utf8")) as ProjectFile;

/** Runs the program like pulumi-language-nodejs does, from the program's own directory. */
async function runProgram(
  engine: FakeEngine,
  config: { config: Record<string, string>; secretKeys: string[] },
): Promise<{ code: number; output: string }> {
  const programDirectory = path.dirname(path.join(repoRoot, project.main));
  const args = [
    ...(project.runtime.options.nodeargs ?? "").split(" ").filter(Boolean),
    path.join(repoRoot, "node_modules/@pulumi/pulumi/cmd/run/index.js"),
    `--monitor=${engine.address}`,
    `--engine=${engine.address}`,
    `--project=${project.name}`,
    "--stack=dev",
    `--pwd=${programDirectory}`,
    "--dry-run=true",
    "--parallel=4",
    path.basename(project.main),
  ];
  // Pulumi passes config keys as `<namespace>:config:<key>`.
  const pulumiConfig = Object.fromEntries(
    Object.entries(config.config).map(([key, value]) => [key.replace(":", ":config:"), value]),
  );
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, args, {
      cwd: programDirectory,
      env: {
        ...process.env,
        PULUMI_CONFIG: JSON.stringify(pulumiConfig),
        PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(config.secretKeys),
        PULUMI_NODEJS_TYPESCRIPT: String(project.runtime.options.typescript ?? true),
        STEPWISE_WORKER_BUNDLE: fixtureBundlePath,
        NO_COLOR: "1",
      },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

let engine: FakeEngine;

beforeEach(async () => {
  engine = await startFakeEngine();
});

afterEach(async () => {
  await engine.stop();
});

describe("Pulumi.yaml's Node.js runtime", () => {
  it("is ESM TypeScript through tsx, without Pulumi's own ts-node", () => {
    expect(project.runtime.name).toBe("nodejs");
    expect(project.runtime.options.nodeargs).toBe("--import tsx");
    expect(project.runtime.options.typescript).toBe(false);
    expect(project.main).toBe("infra/index.ts");
  });

  it("runs the program and registers the example stack's resources", async () => {
    const config = stackConfigFromFile(path.join(repoRoot, "Pulumi.dev.yaml"), {
      "stepwise:rotateToken": "rotate-token-test",
      "stepwise:gatewayToken": "gateway-token-test",
      "stepwise:byokKeys": JSON.stringify(devStackByokKeys),
    });

    const { code, output } = await runProgram(engine, config);

    expect(output).toBe("");
    expect(code).toBe(0);
    const types = engine.resources.map((resource) => resource.type);
    expect(types).toContain("pulumi:pulumi:Stack");
    expect(
      types.filter(
        (type) => type === "cloudflare:index/aiGatewayDynamicRouting:AiGatewayDynamicRouting",
      ),
    ).toHaveLength(1);
    expect(types).toContain("cloudflare:index/workersScript:WorkersScript");
    // The BYOK provider configs are dynamic resources: their provider serializes in the real
    // language host (ESM through tsx), one per stored key.
    const providerConfigs = engine.resources.filter(
      (resource) => resource.type === "pulumi-nodejs:dynamic/stepwise:ByokProviderConfig",
    );
    expect(providerConfigs).toHaveLength(3);
    expect(String(providerConfigs[0]!.inputs.__provider)).toMatch(
      /require\("cloudflare(\/index\.js)?"\)/,
    );
    expect(engine.logs.filter((log) => log.severity >= 3)).toEqual([]);
  }, 60_000);

  it("reports a bad config as one error without a stack trace, before any cloud resource", async () => {
    const config = stackConfig({
      "stepwise:accountId": "not-an-account",
      "stepwise:gateways": [{ id: "g", routes: { r: [{ provider: "openai", model: "m" }] } }],
    });

    const { code } = await runProgram(engine, config);

    expect(code).not.toBe(0);
    const errors = engine.logs.filter((log) => log.severity >= 3).map((log) => log.message);
    expect(errors).toHaveLength(1);
    // The bad account id, and the dynamic route's two problems (open gateway, no stored key):
    // all in one run, as `stepwise validate` reports them.
    expect(errors[0]).toContain("Pulumi.dev.yaml: 3 problems in the Stepwise config");
    expect(errors[0]).toContain("accountId: accountId must be the 32 lowercase hex characters");
    expect(errors[0]).not.toMatch(/\n\s+at .*:\d+:\d+/);
    expect(engine.resources.filter((resource) => resource.type !== "pulumi:pulumi:Stack")).toEqual(
      [],
    );
  }, 60_000);
});
