/**
 * Every command README.md, ARCHITECTURE.md, CONTRIBUTING.md and docs/*.md show is run by a test,
 * which checks its output against what the text says: the tests name each command they run with
 * `documented(text)`, and this file finds those names. A bare mention of a subcommand
 * (`stepwise report`) runs its `--help`. The few commands that cannot run on a development
 * machine (they need the Pulumi CLI, a Cloudflare account, HashiCorp Vault, or minutes of
 * benchmarks) are listed below with the reason and a check of what they refer to. A new command in the docs fails here until a test runs it.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { configShapeSchema } from "../../src/config/index.ts";
import { schemaAt } from "../../src/config/suggest.ts";
import { allDocumentedCommands, projectRoot } from "./documented.ts";

const read = (file: string) => readFileSync(path.join(projectRoot, file), "utf8");
const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;

/** Every command a test file names with `documented(text)`, the text a string literal. */
function commandsTestsRun(): Set<string> {
  const found = new Set<string>();
  const files = readdirSync(path.join(projectRoot, "test"), { recursive: true, encoding: "utf8" });
  for (const file of files.filter((name) => name.endsWith(".ts"))) {
    const text = read(path.join("test", file));
    for (const match of text.matchAll(
      /documented\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')/g,
    ))
      found.add((match[1] ?? match[2]!).replace(/\\(.)/g, "$1"));
  }
  return found;
}

interface NotRunHere {
  readonly reason: string;
  /** Checks what the command refers to: a script, a config key, a file. */
  readonly check: () => void;
}

const pulumiReason =
  "needs the Pulumi CLI and a Cloudflare account, neither reachable from a development machine; the program it runs is tested with Pulumi's mocks and its language host (test/infra)";

/** A Pulumi command: what it names (stack file, config key, stack output) exists. */
function pulumiCommand(text: string): NotRunHere {
  return {
    reason: pulumiReason,
    check() {
      expect(read("Pulumi.yaml")).toMatch(/^name: stepwise$/m);
      if (/(--stack|-s) dev\b/.test(text))
        expect(existsSync(path.join(projectRoot, "Pulumi.dev.yaml"))).toBe(true);
      const key = /'?stepwise:([\w.<>-]+)'?/.exec(text)?.[1];
      if (key !== undefined) {
        const segments = key
          .split(".")
          .map((segment) => (segment.startsWith("<") ? "openai" : segment));
        expect(
          schemaAt(configShapeSchema, segments),
          `stepwise:${key} is not a config key`,
        ).toBeDefined();
      }
      const output = /stack output (\w+)/.exec(text)?.[1];
      if (output !== undefined)
        expect(read("infra/index.ts")).toContain(`export const ${output} =`);
    },
  };
}

const scriptIs = (name: string, body: string) => () => expect(scripts[name]).toBe(body);

/**
 * A `stepwise` command written with placeholders (`<id>`, `…`): a template, not a command. Its
 * subcommand and every option it names exist (the help lists them); filled in, the same options
 * run in test/docs.
 */
function stepwiseTemplate(text: string): NotRunHere | undefined {
  const match = /(?:^|\s)stepwise (\w+)(.*)$/.exec(text);
  if (!match || !/<[a-z-]+>|…/.test(text)) return undefined;
  const [, subcommand, rest] = match;
  return {
    reason: "a template with placeholders; the same options run filled in, in test/docs",
    check() {
      const help = execFileSync(process.execPath, ["bin/stepwise.js", subcommand!, "--help"], {
        cwd: projectRoot,
        encoding: "utf8",
      });
      for (const option of rest!.match(/--[a-z-]+/g) ?? []) expect(help).toContain(`${option} `);
    },
  };
}

const notRunHere: Readonly<Record<string, NotRunHere>> = {
  "npm ci": {
    reason:
      "installs the lock file: CI (.ci/run and the workflow) runs it before npm test, which runs this file",
    check() {
      expect(read(".ci/run")).toMatch(/^npm ci$/m);
      expect(read(".github/workflows/ci.yml")).toContain("- run: npm ci");
    },
  },
  "npm test": {
    reason: "this suite is npm test",
    check: scriptIs(
      "test",
      "npm run typecheck && npm run lint && npm run build && npm run test:unit",
    ),
  },
  "npm run typecheck": {
    reason: "npm test runs it",
    check: () => expect(scripts.test).toContain("npm run typecheck"),
  },
  "npm run lint": {
    reason: "npm test runs it",
    check: () => expect(scripts.test).toContain("npm run lint"),
  },
  "npm run build": {
    reason: "npm test runs it before the suite (the docs tests run the built CLI)",
    check: () => expect(scripts.test).toContain("npm run build"),
  },
  "npm run format": {
    reason:
      "rewrites the tree's formatting; npm run lint, which npm test runs, checks the same rules",
    check: scriptIs("format", "biome check --write ."),
  },
  "npm run test:unit": {
    reason: "npm test runs it",
    check: () => expect(scripts.test).toContain("npm run test:unit"),
  },
  "npm run test:worker": {
    reason: "the workers project of npm run test:unit, which npm test runs",
    check: scriptIs("test:worker", "vitest run --project workers"),
  },
  "npm run cf-typegen": {
    reason:
      "writes a committed file; test/e2e/worker-bundle.test.ts runs its --check twin and fails on drift",
    check: () => expect(scripts["cf-typegen:check"]).toBe(`${scripts["cf-typegen"]} --check`),
  },
  "npm run test:under-load -- --runs 2": {
    reason:
      "runs npm test twice with every core busy (minutes); test/tools/under-load.test.ts runs the script on a short command",
    check: scriptIs("test:under-load", "tsx tools/scripts/under-load.ts"),
  },
  "npm run bench": {
    reason:
      "measures for minutes; its parts are tested in test/tools/bench, and BENCHMARKS.md is its last run",
    check() {
      expect(scripts.bench).toBe("tsx tools/bench/run.ts");
      expect(read("BENCHMARKS.md")).toContain("<!-- bench:summary -->");
    },
  },
  "npm run bench:quick": {
    reason: "the same benchmarks, smaller; their parts are tested in test/tools/bench",
    check: scriptIs("bench:quick", "tsx tools/bench/run.ts --quick"),
  },
  "npm run chaos": {
    reason: "3,000 calls; the same campaign, quick, runs in test/docs/chaos-quick.test.ts",
    check: () => expect(scripts["chaos:quick"]).toBe(`${scripts.chaos} --quick`),
  },
  "wrangler deploy --dry-run": {
    reason: "npm run worker:bundle runs it (test/docs/worker-bundle.test.ts)",
    check: () => expect(scripts["worker:bundle"]).toMatch(/^wrangler deploy --dry-run /),
  },
  "wrangler deploy --dry-run --outdir dist/worker-bundle": {
    reason: "npm run worker:bundle is this command (test/docs/worker-bundle.test.ts)",
    check: scriptIs("worker:bundle", "wrangler deploy --dry-run --outdir dist/worker-bundle"),
  },
  "wrangler dev": {
    reason: "npm run worker:dev runs it (test/docs/worker-dev.test.ts)",
    check: () => expect(read("tools/scripts/worker-dev.ts")).toContain('"dev",'),
  },
  "npx wrangler kv key list --binding KEYS --prefix key: --remote": {
    reason: "lists a deployed namespace (--remote): needs a Cloudflare account",
    check: () => expect(read("wrangler.jsonc")).toContain('"binding": "KEYS"'),
  },
  "npx wrangler kv key delete --binding KEYS --remote <name>": {
    reason: "deletes from a deployed namespace (--remote): needs a Cloudflare account",
    check: () => expect(read("wrangler.jsonc")).toContain('"binding": "KEYS"'),
  },
  "npm run bench -- --only worker-overhead": {
    reason: "measures for minutes; its parts are tested in test/tools/bench",
    check() {
      expect(read("tools/bench/run.ts")).toContain("--only <id,id>");
      expect(read("tools/bench/worker-overhead.ts")).toContain('"worker-overhead"');
    },
  },
  "npm run bench -- --only outage-first-token": {
    reason:
      "waits out real outages (8 s first tokens) for about a minute; its parts are tested in test/tools/bench",
    check() {
      expect(read("tools/bench/run.ts")).toContain("outageFirstToken,");
      expect(read("tools/bench/outage-first-token.ts")).toContain('"outage-first-token"');
    },
  },
  "npm run bench -- --only emulator-http-layer": {
    reason: "measures the emulator on node:http and behind hono (seconds, on a busy machine)",
    check() {
      expect(read("tools/bench/run.ts")).toContain("emulatorHttpLayer,");
      expect(read("tools/bench/emulator-http-layer.ts")).toContain('"emulator-http-layer"');
    },
  },
  "npx stepwise report --source analytics-engine": {
    reason:
      "names the option; stepwise report points.jsonl --source analytics-engine --by route,step runs in test/docs/report.test.ts",
    check: () => expect(read("src/cli/commands/report.ts")).toContain('"analytics-engine"'),
  },
  'curl -s "https://api.cloudflare.com/client/v4/accounts/$ACCOUNT/analytics_engine/sql" -H "Authorization: Bearer $TOKEN" -d "SELECT * FROM stepwise_events WHERE timestamp > NOW() - INTERVAL \'1\' DAY FORMAT JSONEachRow" > points.jsonl':
    {
      reason:
        "queries Cloudflare's Analytics Engine SQL API: needs an account; the report over what it writes runs in test/docs/report.test.ts",
      check: () => expect(read("wrangler.jsonc")).toContain('"dataset": "stepwise_events"'),
    },
  "wrangler secret put ANALYTICS_API_TOKEN": {
    reason: "sets a secret of a deployed Worker: needs a Cloudflare account",
    check: () => expect(read("src/worker/daily-summary.ts")).toContain("ANALYTICS_API_TOKEN"),
  },
  "npx vitest run --project workers": {
    reason: "npm run test:worker is this command, and npm test runs the workers project",
    check: scriptIs("test:worker", "vitest run --project workers"),
  },
  "npx stepwise <command>": {
    reason: "a template; npx stepwise validate --stack dev runs in test/docs/cli.test.ts",
    check: () => expect(scripts.stepwise).toContain("node bin/stepwise.js"),
  },
  "export STEPWISE_ROTATE_TOKEN=…": {
    reason:
      "a placeholder for a deployed Worker's token; the local one is set and used in test/docs/worker-dev.test.ts",
    check: () => expect(read("src/cli/commands/rotate.ts")).toContain("env.STEPWISE_ROTATE_TOKEN"),
  },
  "npx stepwise rotate openai --pool-key secondary --key-file ./openai-2.key": {
    reason:
      "needs a key file and a deployed Worker; pool keys' rotation runs in workerd in test/worker/key-pools.test.ts",
    check: () => expect(read("src/cli/commands/rotate.ts")).toContain("--pool-key <name>"),
  },
  'vault read -field=key secret/anthropic | npx stepwise rotate anthropic --key-file - --worker https://stepwise-keys.example.workers.dev --label "quarterly rotation"':
    {
      reason:
        "needs HashiCorp Vault and a deployed Worker; the same stepwise rotate, key from stdin, runs against npm run worker:dev in test/docs/worker-dev.test.ts",
      check() {
        const rotate = read("src/cli/commands/rotate.ts");
        for (const option of ["--key-file <file>", "--worker <url>", "--label <text>"])
          expect(rotate).toContain(option);
      },
    },
};

const documentedCommands = allDocumentedCommands();
const unique = [...new Map(documentedCommands.map((command) => [command.text, command])).values()];
const runByTests = commandsTestsRun();
const bareSubcommand =
  /^(?:stepwise|node bin\/stepwise\.js)(?: (demo|validate|dev|plan|init|report|rotate|chaos))?$/;

describe("every documented command", () => {
  it("is run by a test or listed with a reason", () => {
    const uncovered = unique.filter(
      (command) =>
        !runByTests.has(command.text) &&
        !bareSubcommand.test(command.text) &&
        !(command.text in notRunHere) &&
        !command.text.startsWith("pulumi ") &&
        stepwiseTemplate(command.text) === undefined,
    );
    expect(
      uncovered.map((command) => `${command.file}:${command.line} ${command.text}`),
      "commands no test runs: run each in test/docs, naming it with documented(text)",
    ).toEqual([]);
  });

  it("lists nothing the docs no longer show", () => {
    const shown = new Set(unique.map((command) => command.text));
    expect(Object.keys(notRunHere).filter((text) => !shown.has(text))).toEqual([]);
    expect([...runByTests].filter((text) => !shown.has(text))).toEqual([]);
  });

  it.each(
    unique.filter((command) => bareSubcommand.test(command.text)).map((command) => command.text),
  )("names a command that exists: %s --help", async (text) => {
    const subcommand = bareSubcommand.exec(text)?.[1];
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["bin/stepwise.js", ...(subcommand ? [subcommand] : []), "--help"],
      { cwd: projectRoot },
    );
    expect(stdout).toContain(`Usage: stepwise${subcommand ? ` ${subcommand}` : ""}`);
  });

  const staticOnes = unique
    .filter((command) => !runByTests.has(command.text))
    .flatMap((command) => {
      const entry =
        notRunHere[command.text] ??
        (command.text.startsWith("pulumi ") ? pulumiCommand(command.text) : undefined) ??
        stepwiseTemplate(command.text);
      return entry === undefined ? [] : [[command.text, entry] as const];
    });
  it.each(staticOnes)("refers to what exists, though not run here: %s", (_text, entry) => {
    expect(entry.reason.length).toBeGreaterThan(10);
    entry.check();
  });
});
