/**
 * `stepwise init`, as docs/pulumi.md shows it: the repository it writes (each file checked), that
 * repository's own commands (`stepwise validate`, `stepwise plan`, `npm test` of its routes on the
 * emulator) green with this checkout's packages, prompts on a terminal, and no file overwritten.
 * Needs `npm run build` (the CLI, and the Worker bundle the plan reads).
 */
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initCommand } from "../../src/cli/commands/init.ts";
import { parseConfigText, readYamlDocument } from "../../src/config/index.ts";
import { documented, makeSandbox, runDocumented, type Sandbox } from "../docs/documented.ts";
import { linkInstalledPackages, projectRoot } from "../helpers/gateway-repo.ts";

const initCommandText = documented(
  "npx stepwise init my-gateway --account-id 0123456789abcdef0123456789abcdef",
);
let sandbox: Sandbox;
let repo: Sandbox;
let packageName: string;
const read = (file: string) => readFile(path.join(repo.directory, file), "utf8");

beforeAll(async () => {
  sandbox = await makeSandbox([]);
  repo = { ...sandbox, directory: path.join(sandbox.directory, "my-gateway") };
  ({ name: packageName } = JSON.parse(
    await readFile(path.join(projectRoot, "package.json"), "utf8"),
  ) as { name: string });
  const run = await runDocumented(initCommandText, { sandbox, env: { CI: "true" } });
  if (run.code !== 0) throw new Error(`stepwise init failed:\n${run.output}`);
}, 60_000);

afterAll(async () => {
  await sandbox?.remove();
});

describe("stepwise init, as docs/pulumi.md shows it", () => {
  it("writes a Pulumi project whose program uses the package's components", async () => {
    const manifest = JSON.parse(await read("package.json")) as {
      name: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      scripts: Record<string, string>;
    };
    expect(manifest.name).toBe("my-gateway");
    expect(Object.keys(manifest.dependencies)).toEqual([packageName]);
    expect(Object.keys(manifest.devDependencies).sort()).toEqual(
      ["@pulumi/cloudflare", "@pulumi/pulumi", "tsx", "vitest"].sort(),
    );
    expect(manifest.scripts.test).toBe("vitest run");
    expect(await read("Pulumi.yaml")).toMatch(/^main: index\.ts$/m);
    expect(await read("Pulumi.yaml")).toContain('nodeargs: "--import tsx"');
    expect(await read("index.ts")).toContain(
      `import { buildCurrentStack } from "${packageName}/pulumi";`,
    );
    expect(await read(".gitignore")).toContain("node_modules/");
  });

  it("writes a stack file from the flags that stepwise validate accepts", async () => {
    const config = parseConfigText(await read("Pulumi.dev.yaml"), "Pulumi.dev.yaml");
    expect(config.accountId).toBe("0123456789abcdef0123456789abcdef");
    expect(config.gateways.map((gateway) => gateway.id)).toEqual(["chat"]);
    expect(config.keys.providers).toEqual(["openai"]);
    const run = await runDocumented(documented("npx stepwise validate --stack dev"), {
      sandbox: repo,
    });
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toContain("✔ Pulumi.dev.yaml is valid");
  });

  it("writes a stack that passes the CI gate as written: --strict finds no warning in a fresh repository", async () => {
    // The workflow runs validate with --strict, so a placeholder secret or a default that
    // validate warns about would fail the first pull request of every new repository.
    const run = await runDocumented(
      documented("npx stepwise validate --stack dev --strict --format github"),
      { sandbox: repo },
    );
    expect(run.code, run.output).toBe(0);
    expect(run.output).not.toMatch(/^::(error|warning)/m);
    expect(run.stdout).toContain("0 errors, 0 warnings (--strict)");
  });

  it("writes a stack file that names the package's JSON Schema for editors", async () => {
    const first = (await read("Pulumi.dev.yaml")).split("\n")[0]!;
    const reference = `./node_modules/${packageName}/dist/stepwise-config.schema.json`;
    expect(first).toBe(`# yaml-language-server: $schema=${reference}`);
    // Once installed, node_modules/<package>/ is this checkout: the file the comment names ships in it.
    const shipped = JSON.parse(
      await readFile(path.join(projectRoot, "dist", "stepwise-config.schema.json"), "utf8"),
    ) as { $schema?: string };
    expect(shipped.$schema).toMatch(/json-schema\.org/);
  });

  it("writes a stack the plan accepts: the program's preflight passes before any secret is set", async () => {
    const run = await runDocumented(documented("npx stepwise plan --stack dev"), {
      sandbox: repo,
    });
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toContain("+ cloudflare:index/aiGateway:AiGateway chat-gateway");
    expect(run.stdout).toContain("+ cloudflare:index/workersScript:WorkersScript key-vault-worker");
  });

  it("writes CI: validate, test and plan, preview on pull requests, up on main", async () => {
    const document = readYamlDocument(await read(".github/workflows/gateway.yml"));
    if (!document.ok) throw new Error("the workflow is not YAML");
    const workflow = document.value as {
      on: Record<string, unknown>;
      jobs: Record<string, { if?: string; needs?: string; steps: { run?: string }[] }>;
    };
    expect(Object.keys(workflow.on)).toEqual(["pull_request", "push"]);
    const runs = (job: string) => workflow.jobs[job]!.steps.flatMap((step) => step.run ?? []);
    expect(runs("test")).toEqual([
      "npm ci",
      "npx stepwise validate --stack dev --strict --format github",
      "npm test",
      "npx stepwise plan --stack dev",
    ]);
    expect(workflow.jobs.preview!.if).toBe("github.event_name == 'pull_request'");
    expect(runs("preview")).toContain("pulumi preview --stack dev --diff");
    expect(workflow.jobs.deploy!.if).toContain("refs/heads/main");
    expect(runs("deploy")).toContain("pulumi up --stack dev --yes");
  });

  it("writes a test of the routes that passes against the emulator (npm test)", async () => {
    expect(await read("test/routes.test.ts")).toContain(`from "${packageName}/emulator"`);
    await linkInstalledPackages(repo.directory);
    const { stdout } = await promisify(execFile)("npm", ["test", "--", "--reporter=verbose"], {
      cwd: repo.directory,
      env: { ...process.env, CI: "true", NO_COLOR: "1" },
    });
    expect(stdout).toContain("chat: route default answers from its first step");
    expect(stdout).toMatch(/Tests\s+1 passed/);
  }, 120_000);

  it("writes a README whose commands are the repository's own", async () => {
    const readme = await read("README.md");
    expect(readme).toContain("npx stepwise validate --stack dev");
    expect(readme).toContain("npx stepwise plan --stack dev");
    expect(readme).toContain("pulumi config set --secret stepwise:rotateToken");
  });

  it("refuses to overwrite a file: exit 1, naming it, and nothing written", async () => {
    await writeFile(path.join(repo.directory, "README.md"), "mine\n");
    const run = await runDocumented(initCommandText, {
      sandbox,
      env: { CI: "true" },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${path.join(repo.directory, "package.json")} already exists`);
    expect(await read("README.md")).toBe("mine\n");
  });

  it("without a terminal, asks nothing and names the missing flag (exit 2)", async () => {
    const run = await runDocumented(initCommandText, {
      sandbox,
      env: { CI: "true" },
      append: "--account-id ''",
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("pass --account-id");
  });
});

describe("stepwise init on a terminal", () => {
  it("asks for each value the flags leave out, with the defaults offered", async () => {
    const asked: string[] = [];
    const answers: Record<string, string> = {
      "Cloudflare account id": "abcdefabcdefabcdefabcdefabcdefab",
      "Gateway id": "helpdesk",
    };
    const command = initCommand({
      interactive: true,
      ask: async (message, defaultValue) => {
        asked.push(message);
        return answers[message] ?? defaultValue ?? "";
      },
    });
    const directory = path.join(sandbox.directory, "asked");
    await command.parseAsync([directory, "--stack", "prod"], { from: "user" });
    expect(asked).toEqual([
      "Repository name",
      "Cloudflare account id",
      "Gateway id",
      "Provider of the default route",
      "Model of the default route",
    ]);
    const config = parseConfigText(
      await readFile(path.join(directory, "Pulumi.prod.yaml"), "utf8"),
      "Pulumi.prod.yaml",
    );
    expect(config.accountId).toBe("abcdefabcdefabcdefabcdefabcdefab");
    expect(config.gateways[0]!.id).toBe("helpdesk");
  });
});
