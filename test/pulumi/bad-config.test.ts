/**
 * A stack config the CLI rejects never reaches Cloudflare: the program fails before registering
 * anything, with the problems `stepwise validate` prints for the same file.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import * as pulumi from "@pulumi/pulumi";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { namespacedInput, parseStackConfig } from "../../src/pulumi/config.ts";
import { buildStack } from "../../src/pulumi/stack.ts";
import {
  devStackByokKeys,
  fixtureBundlePath,
  installMocks,
  type Recorder,
  repoRoot,
  stackConfigFromFile,
} from "./helpers.ts";

const badStack = `config:
  stepwise:accountId: "0123456789abcdef0123456789abcdef"
  stepwise:gateways:
    - id: chat-prod
      cache: { ttl: 30 }
      routes:
        default:
          deadlineMs: 1000
          steps:
            - { provider: openai, model: gpt-4o-mini, timeoutMs: 5000 }
            - { provider: anthropic, model: claude-sonnet-4-5, tmeout: 100 }
  stepwise:keys:
    providers: [openai]
`;

const directory = mkdtempSync(path.join(tmpdir(), "stepwise-infra-"));
const stackFile = path.join(directory, "Pulumi.bad.yaml");
writeFileSync(stackFile, badStack);

let printedByValidate: Promise<string> | undefined;

/**
 * The problems `stepwise validate --stack bad` prints (before its warnings), run in the stack
 * file's directory (run once).
 */
function validateOutput(): Promise<string> {
  printedByValidate ??= runValidate();
  return printedByValidate;
}

async function runValidate(): Promise<string> {
  try {
    await promisify(execFile)(
      "node",
      [path.join(repoRoot, "bin/stepwise.js"), "validate", "--stack", "bad"],
      {
        cwd: directory,
        env: { ...process.env, NO_COLOR: "1" },
      },
    );
  } catch (error) {
    return (error as { stderr: string }).stderr.trim().split("\n\n")[0]!;
  }
  throw new Error("stepwise validate accepted the bad stack");
}

let recorder: Recorder;

beforeEach(async () => {
  ({ recorder } = await installMocks("bad"));
  vi.resetModules();
});

describe("a bad stack config", () => {
  it("stops the program before any resource, with the problems stepwise validate prints", async () => {
    const printed = await validateOutput();
    // Every problem in one run: the schema's, the cross-field rules', the dynamic route's and the
    // missing rotate token.
    expect(printed).toMatch(/^Pulumi\.bad\.yaml: 7 problems in the Stepwise config/);
    const { config, secretKeys } = stackConfigFromFile(stackFile, {});
    pulumi.runtime.setAllConfig(config, secretKeys);

    const run = import("../../infra/index.ts");

    await expect(run).rejects.toSatisfy(pulumi.RunError.isInstance);
    const error = await run.catch((failure: Error) => failure);
    // Same header, same paths, same messages. The stack file is not where the program looks
    // (the project root), so it cannot name lines, and without lines issues keep schema order.
    const [header, ...issues] = (error as Error).message.split("\n");
    const [printedHeader, ...printedIssues] = printed.replace(/ \(line \d+\)/g, "").split("\n");
    expect(header).toBe(printedHeader);
    expect(issues.sort()).toEqual(printedIssues.sort());
    // (A ConfigError from the program's own module copy, after vi.resetModules.)
    expect((error as Error).cause).toMatchObject({ name: "ConfigError", code: "config_invalid" });
    expect(recorder.resources).toEqual([]);
  });

  it("names the lines too when the stack file on disk is the source", async () => {
    const printed = await validateOutput();
    const { config } = stackConfigFromFile(stackFile, {});

    const parse = () =>
      parseStackConfig(namespacedInput(config, "stepwise"), "Pulumi.bad.yaml", stackFile);

    expect(parse).toThrow(ConfigError);
    expect(() => parse()).toThrow(printed);
  });

  it("refuses to deploy the Worker without a rotate token, before any resource", async () => {
    const { config } = await loadConfig({ stack: "dev", cwd: repoRoot });

    const build = () =>
      buildStack(config, {
        secrets: { gatewayToken: pulumi.secret("gateway-token") },
        source: "Pulumi.dev.yaml",
        workerBundlePath: fixtureBundlePath,
      });

    expect(build).toThrow(
      "rotateToken: the companion Worker needs an admin token: pulumi config set --secret stepwise:rotateToken",
    );
    expect(recorder.resources).toEqual([]);
  });

  it("refuses to deploy without the Worker bundle, naming the command that builds it", async () => {
    const { config } = await loadConfig({ stack: "dev", cwd: repoRoot });

    const build = () =>
      buildStack(config, {
        secrets: { rotateToken: pulumi.secret("rotate-token"), byokKeys: devStackByokKeys },
        workerBundlePath: path.join(directory, "dist/worker-bundle/index.js"),
      });

    expect(build).toThrow(
      /build it first with `npx wrangler deploy --dry-run --outdir dist\/worker-bundle`/,
    );
    expect(recorder.resources).toEqual([]);
  });
});
