/**
 * docs/migrate-to-rest.md as written: `stepwise validate`, `stepwise dev`, the guide's app (its
 * TypeScript block, importing the built package through package.json's `exports`) run once with
 * `default` on the universal endpoint and once on the REST API, healthy and with Anthropic down,
 * then the guide's two `stepwise report` commands: one row per step counting both generations,
 * and a row per step and endpoint in the same table.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StartedProcess } from "../helpers/processes.ts";
import {
  documented,
  fencedBlock,
  makeSandbox,
  projectRoot,
  runDocumented,
  type Sandbox,
  startDocumented,
} from "./documented.ts";

const run = promisify(execFile);
const guide = "docs/migrate-to-rest.md";

/** The guide's app with each `stepwise-gateway/…` import pointed at the built file it exports. */
function appAsWritten(): string {
  const manifest = JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8")) as {
    exports: Record<string, { import: string }>;
  };
  return fencedBlock(guide, "ts", "createRestClient").replace(
    /from "stepwise-gateway(\/[^"]*)"/g,
    (_, entry: string) => {
      const target = manifest.exports[`.${entry}`];
      if (target === undefined) throw new Error(`package.json exports no ${entry}`);
      return `from "${path.join(projectRoot, target.import)}"`;
    },
  );
}

let sandbox: Sandbox;
let dev: StartedProcess;
let gatewayUrl: string;

beforeAll(async () => {
  sandbox = await makeSandbox();
  // An app's project: ES modules (the guide's app awaits at its top level).
  await writeFile(path.join(sandbox.directory, "package.json"), '{ "type": "module" }\n');
  await writeFile(path.join(sandbox.directory, "app.ts"), appAsWritten());
  // `--port 0`: the test listens on a port chosen at run time, never on the fixed 8787.
  dev = startDocumented(documented("npx stepwise dev --stack dev"), {
    sandbox,
    append: "--port 0",
  });
  [, gatewayUrl] = (await dev.waitFor(/listening on (\S+)/)) as [string, string];
});

afterAll(async () => {
  await dev?.stop();
  await sandbox?.remove();
});

let asked = 0;

/**
 * Runs the guide's app with the environment step 3 sets and a new question (as step 3 says: a
 * cached answer comes back with the step that first served it); returns the step it printed.
 */
async function runApp(
  restRoutes?: string,
): Promise<{ index: number; provider: string; cached: boolean }> {
  const question = `What is Cloudflare? (${++asked})`;
  const tsx = path.join(projectRoot, "node_modules/.bin/tsx");
  const { stdout } = await run(tsx, ["app.ts", question], {
    cwd: sandbox.directory,
    env: {
      ...sandbox.env,
      STEPWISE_GATEWAY_URL: gatewayUrl,
      CF_AIG_TOKEN: "stepwise-dev-token",
      CLOUDFLARE_API_TOKEN: "stepwise-dev-token",
      ...(restRoutes === undefined ? {} : { STEPWISE_REST_ROUTES: restRoutes }),
    },
  });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as {
    index: number;
    provider: string;
    cached: boolean;
  };
}

/** The mock's URL that `stepwise dev` printed for a provider. */
async function mockUrl(provider: string): Promise<string> {
  const [, url] = (await dev.waitFor(new RegExp(`\\n\\s+${provider}\\s+(\\S+) \\(mock\\)`))) as [
    string,
    string,
  ];
  return url.replace(/\/+$/, "");
}

describe("docs/migrate-to-rest.md, as written", () => {
  it("validates the dev stack the guide moves a route of", async () => {
    const result = await runDocumented(documented("npx stepwise validate --stack dev"), {
      sandbox,
    });
    expect(result.code, result.output).toBe(0);
  });

  it("serves the same step on both generations, and the report counts them in one table", async () => {
    // "Both print the same `served` step."
    expect(await runApp()).toMatchObject({ index: 0, provider: "anthropic", cached: false });
    expect(await runApp("default")).toMatchObject({
      index: 0,
      provider: "anthropic",
      cached: false,
    });
    const anthropic = await mockUrl("anthropic");
    const down = await fetch(`${anthropic}/__mock/faults`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rules: [{ provider: "anthropic", kind: "unavailable" }] }),
    });
    expect(down.status).toBe(200);
    expect(await runApp()).toMatchObject({ index: 1, provider: "openai", cached: false });
    expect(await runApp("default")).toMatchObject({ index: 1, provider: "openai", cached: false });

    // "Each step of `chat-dynamic/default` has one row, whichever endpoint carried its calls"
    const merged = await runDocumented(
      documented("npx stepwise report calls.jsonl --route default"),
      { sandbox },
    );
    expect(merged.code, merged.output).toBe(0);
    const steps = merged.stdout.split("By gateway · route · step · provider · model")[1]!;
    expect(steps).toMatch(/\nchat-dynamic\s+default\s+0\s+anthropic\s+claude-sonnet-4-5\s+2\s/);
    expect(steps).toMatch(/\nchat-dynamic\s+default\s+1\s+openai\s+gpt-4o-mini\s+2\s/);

    // "Every step then has a row per endpoint (`universal`, `rest`)"
    const apart = await runDocumented(
      documented("npx stepwise report calls.jsonl --route default --by step,metadata.endpoint"),
      { sandbox },
    );
    expect(apart.code, apart.output).toBe(0);
    for (const [step, provider] of [
      [0, "anthropic"],
      [1, "openai"],
    ] as const) {
      for (const endpoint of ["universal", "rest"]) {
        expect(apart.stdout).toMatch(
          new RegExp(
            `\\nchat-dynamic\\s+default\\s+${step}\\s+${provider}\\s+\\S+\\s+${endpoint}\\s+1\\s`,
          ),
        );
      }
    }
  });
});
