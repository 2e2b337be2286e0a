/**
 * `stepwise plan`, run as docs/pulumi.md shows it in a fresh project (a stack file and the
 * `stepwise` command): what the program would create for the dev stack, the same resources the
 * mocks test of the program records (test/infra/program.test.ts), with no secret printed; a
 * config the program refuses fails with the program's message. Needs `npm run build:js`.
 *
 * The Worker bundle is the test fixture (`STEPWISE_WORKER_BUNDLE`), so this test does not depend
 * on a wrangler build; the bundle the package ships is test/pulumi/shipped-entry.test.ts's.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  consoleBlock,
  documented,
  expectBlockPrinted,
  makeSandbox,
  runDocumented,
  type Sandbox,
} from "../docs/documented.ts";
import { devStackResourceTree, fixtureBundlePath } from "../pulumi/helpers.ts";

let sandbox: Sandbox;
const env = { STEPWISE_WORKER_BUNDLE: fixtureBundlePath };

beforeAll(async () => {
  sandbox = await makeSandbox(["Pulumi.dev.yaml"]);
});

afterAll(async () => {
  await sandbox?.remove();
});

interface JsonPlan {
  ok: boolean;
  stack: string;
  source: string;
  resources: {
    type: string;
    name: string;
    parent?: string;
    component: boolean;
    inputs: Record<string, unknown>;
    secretInputs: string[];
  }[];
  warnings: string[];
}

describe("stepwise plan, as docs/pulumi.md shows it", () => {
  it("prints each resource the dev stack would create, with the inputs the docs show", async () => {
    const command = documented("npx stepwise plan --stack dev");
    const run = await runDocumented(command, { sandbox, env });
    expect(run.code, run.output).toBe(0);
    expectBlockPrinted(consoleBlock("docs/pulumi.md", command), run.stdout);
    // No secure value's ciphertext, nor anything decrypted from it, is printed.
    const stackFile = await readFile(path.join(sandbox.directory, "Pulumi.dev.yaml"), "utf8");
    for (const [, cipher] of stackFile.matchAll(/secure: (v1:\S+)/g)) {
      expect(run.output).not.toContain(cipher);
      expect(run.output).not.toContain(cipher!.split(":").at(-1));
    }
    expect(run.output).not.toContain("rotate-token");
  });

  it("--json lists the resources the program registers, with their inputs", async () => {
    const run = await runDocumented(documented("npx stepwise plan --stack dev --json"), {
      sandbox,
      env,
    });
    expect(run.code, run.output).toBe(0);
    const plan = JSON.parse(run.stdout) as JsonPlan;
    expect(plan).toMatchObject({ ok: true, stack: "dev", source: "Pulumi.dev.yaml" });
    // The same tree test/infra/program.test.ts records for infra/index.ts.
    expect(
      plan.resources
        .map(({ type, name, parent }) => `${type} ${name} < ${parent ?? "stack"}`)
        .sort(),
    ).toEqual([...devStackResourceTree].sort());
    const byName = (name: string) => plan.resources.find((resource) => resource.name === name)!;
    expect(byName("chat-prod-gateway").inputs).toMatchObject({
      aiGatewayId: "chat-prod",
      cacheTtl: 300,
      rateLimitingLimit: 600,
      rateLimitingTechnique: "sliding",
      spendLimits: { enabled: true, rules: [{ id: "daily-budget", limit: 50 }] },
    });
    expect(byName("chat-dynamic-route-default").inputs.elements).toContainEqual({
      id: "model-0",
      type: "model",
      properties: {
        aiGatewayDynamicRoutingProvider: "anthropic",
        model: "claude-sonnet-4-5",
        timeout: 15000,
        retries: 1,
      },
      outputs: { success: { elementId: "end" }, fallback: { elementId: "model-1" } },
    });
    const worker = byName("key-vault-worker");
    expect(worker.secretInputs).toEqual(["bindings"]);
    expect(worker.inputs.bindings).toContainEqual({
      name: "ROTATE_TOKEN",
      type: "secret_text",
      text: "[secret]",
    });
    expect(byName("byok-chat-dynamic-openai").inputs.value).toBe("[secret]");
    expect(byName("key-vault-worker").inputs.contentFile).toBe(fixtureBundlePath);
  });

  it("fails as the program does when a secret the deploy needs is not set: exit 1, the fix", async () => {
    const stackFile = await readFile(path.join(sandbox.directory, "Pulumi.dev.yaml"), "utf8");
    const withoutRotateToken = stackFile.replace(
      / {2}stepwise:rotateToken:\n {4}secure: \S+\n/,
      "",
    );
    expect(withoutRotateToken).not.toBe(stackFile);
    await writeFile(path.join(sandbox.directory, "Pulumi.norotate.yaml"), withoutRotateToken);
    const run = await runDocumented(documented("npx stepwise plan --stack dev"), {
      sandbox,
      env,
      append: "--stack norotate",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "the companion Worker needs an admin token: pulumi config set --secret stepwise:rotateToken <long random token>",
    );
    expect(run.stderr).toContain("Pulumi.norotate.yaml");
    expect(run.stdout).toBe("");
    expect(run.output).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it("prints the problems of a bad config as stepwise validate does, lines included", async () => {
    await writeFile(
      path.join(sandbox.directory, "Pulumi.bad.yaml"),
      [
        "config:",
        '  stepwise:accountId: "0123456789abcdef0123456789abcdef"',
        "  stepwise:gateways:",
        "    - id: chat",
        "      cache: { ttl: 30 }",
        "      routes:",
        "        default:",
        "          - { provider: openai, model: gpt-4o-mini, tmeout: 100 }",
        "",
      ].join("\n"),
    );
    const plan = await runDocumented(documented("npx stepwise plan --stack dev"), {
      sandbox,
      env,
      append: "--stack bad",
    });
    const validate = await runDocumented(documented("npx stepwise validate --stack dev"), {
      sandbox,
      append: "--stack bad",
    });
    expect(plan.code).toBe(1);
    expect(validate.code).toBe(1);
    expect(plan.stderr).toContain("gateways[0].cache.ttl (line 5)");
    expect(plan.stderr).toBe(validate.stderr);
  });

  it("names the build when the Worker bundle is missing, before anything is planned", async () => {
    const run = await runDocumented(documented("npx stepwise plan --stack dev"), {
      sandbox,
      env: { STEPWISE_WORKER_BUNDLE: path.join(sandbox.directory, "no-bundle.js") },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("the companion Worker bundle");
    expect(run.stderr).toContain("no-bundle.js");
    expect(run.stdout).toBe("");
  });

  it("reports a missing stack file as a usage error (exit 2), naming the file", async () => {
    const run = await runDocumented(documented("npx stepwise plan --stack dev"), {
      sandbox,
      env,
      append: "--stack nosuch",
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Pulumi.nosuch.yaml");
  });

  it("has --help with its examples and exit codes", async () => {
    const run = await runDocumented(documented("npx stepwise plan --stack dev"), {
      sandbox,
      append: "--help",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Usage: stepwise plan [options]");
    expect(run.stdout).toContain("--json");
    expect(run.stdout).toContain("Exit codes: 0 ok · 1 the program would refuse the config");
  });
});
