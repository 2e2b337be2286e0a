/**
 * The README's and docs' `stepwise validate`, `stepwise dev`, `npx stepwise demo --help` and
 * `npm run size` commands, run as written in a fresh project (or the repository, for a path into
 * it), with their output checked against the console blocks and the claims around them.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { createProgram } from "../../src/cli/main.ts";
import { loadConfig } from "../../src/config/index.ts";
import { compileUniversalRequest } from "../../src/routes/index.ts";
import {
  consoleBlock,
  documented,
  expectBlockPrinted,
  interrupt,
  linePattern,
  makeSandbox,
  projectRoot,
  runDocumented,
  type Sandbox,
  startDocumented,
} from "./documented.ts";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await makeSandbox();
});

afterAll(async () => {
  await sandbox?.remove();
});

describe("stepwise validate, as the README shows it", () => {
  it("validates the dev stack and prints the summary the README shows", async () => {
    const command = documented("npx stepwise validate --stack dev");
    const run = await runDocumented(command, { sandbox });
    expect(run.code, run.output).toBe(0);
    expectBlockPrinted(consoleBlock("README.md", "npx stepwise validate --stack dev"), run.stdout);
  });

  it("prints every problem of the broken example, as the README shows, and exits 1", async () => {
    const command = documented(
      "npx stepwise validate --file test/__fixtures__/config/Pulumi.broken.yaml",
    );
    const run = await runDocumented(command, { sandbox, inProject: true });
    expect(run.code).toBe(1);
    expectBlockPrinted(consoleBlock("README.md", command), run.stderr);
  });

  it("passes the dev stack as the CI gate the README shows: strict, with GitHub annotations", async () => {
    const run = await runDocumented(
      documented("npx stepwise validate --stack dev --strict --format github"),
      { sandbox },
    );
    expect(run.code, run.output).toBe(0);
    expect(run.stdout.trim()).toBe("Pulumi.dev.yaml is valid: 0 errors, 0 warnings (--strict)");
  });

  it("runs the same check docs/pulumi.md runs before a deploy", async () => {
    const run = await runDocumented(documented("node bin/stepwise.js validate --stack dev"), {
      sandbox,
      inProject: true,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("✔ Pulumi.dev.yaml is valid");
  });
});

describe("npx stepwise demo --help", () => {
  it("lists every option the README names", async () => {
    const run = await runDocumented(documented("npx stepwise demo --help"), { sandbox });
    expect(run.code).toBe(0);
    const readme = readFileSync(path.join(projectRoot, "README.md"), "utf8");
    const options = /Options \(`npx stepwise demo --help` for all\):([^.]*)\./.exec(readme)?.[1];
    const named = [...(options ?? "").matchAll(/`(--[a-z-]+)`/g)].map((match) => match[1]!);
    expect(named).toEqual([
      "--calls",
      "--concurrency",
      "--rate",
      "--scenario",
      "--out-dir",
      "--stack",
      "--file",
    ]);
    for (const option of named) expect(run.stdout).toContain(`${option} `);
  });
});

describe("stepwise dev, as the README shows it", () => {
  it("serves a local gateway whose primary is down: calls are served by the fallback", async () => {
    // `--port 0`: the test listens on a port chosen at run time, never on the fixed 8787.
    const dev = startDocumented(
      documented("npx stepwise dev --stack dev --fault-rule anthropic=overloaded"),
      { sandbox, append: "--port 0" },
    );
    onTestFinished(() => dev.stop().then(() => undefined));
    const [, universal] = await dev.waitFor(/gateway chat-prod[\s\S]*?universal\s+(\S+)/);
    expect(dev.output()).toContain("gateway token stepwise-dev-token");
    expect(dev.output()).toMatch(/faults\s+1 rule\(s\)/);
    // The route as the thin client sends it: its steps, each with a key.
    const { config } = await loadConfig({ stack: "dev", cwd: sandbox.directory });
    const steps = compileUniversalRequest(
      config.gateways[0]!.routes.default!,
      { messages: [{ role: "user", content: "Hi" }] },
      { keyLookup: () => "any-provider-key" },
    );
    const response = await fetch(universal!, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "cf-aig-authorization": "Bearer stepwise-dev-token",
      },
      body: JSON.stringify(steps),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    expect(response.headers.get("cf-aig-provider")).toBe("openai");
    await response.text();
    // Ctrl-C stops it cleanly.
    expect(await interrupt(dev), dev.output()).toBe(true);
    expect(dev.output()).toContain("stopped");
  });

  it("has every option docs/emulator.md's synopsis shows", () => {
    const doc = readFileSync(path.join(projectRoot, "docs/emulator.md"), "utf8");
    const synopsis = /```text\n(stepwise dev [\s\S]*?)```/.exec(doc)?.[1] ?? "";
    const shown = new Set([...synopsis.matchAll(/(--[a-z-]+)/g)].map((match) => match[1]!));
    const dev = createProgram().commands.find((command) => command.name() === "dev")!;
    const real = new Set(dev.options.map((option) => option.long));
    expect([...shown].filter((option) => !real.has(option))).toEqual([]);
    expect([...real].filter((option) => !shown.has(option!) && option !== "--help")).toEqual([]);
  });
});

describe("stepwise dev --log-capacity, as docs/emulator.md shows it", () => {
  it("serves with the documented capacity and stops cleanly", async () => {
    const dev = startDocumented(documented("npx stepwise dev --stack dev --log-capacity 50000"), {
      sandbox,
      append: "--port 0",
    });
    onTestFinished(() => dev.stop().then(() => undefined));
    await dev.waitFor(/gateway chat-prod[\s\S]*?universal\s+(\S+)/);
    expect(await interrupt(dev), dev.output()).toBe(true);
  });
});

describe("npm run size", () => {
  it("prints the client's size in one file and split, minified and gzipped", async () => {
    const run = await runDocumented(documented("npm run size"), { sandbox, inProject: true });
    expect(run.code, run.output).toBe(0);
    // Kilobytes of 1,000 bytes, as BENCHMARKS.md counts them.
    for (const line of ["one file", "core"]) {
      const figures = new RegExp(
        `${line}\\s+([\\d.]+) kB gzipped \\((\\d+) bytes; (\\d+) minified\\)`,
      ).exec(run.stdout);
      expect(figures, run.stdout).not.toBeNull();
      const [, shown, gzipped, minified] = figures!;
      expect(Number(shown)).toBe(Number((Number(gzipped) / 1000).toFixed(1)));
      expect(Number(minified)).toBeGreaterThan(Number(gzipped));
    }
  });
});
