/**
 * Rotating a key by following the README: `npm run worker:dev` starts the companion Worker under
 * `wrangler dev` with the local admin token the docs name, and the README's two lines rotate a key
 * read from stdin. The test picks the port at run time (`--port 0`, then the URL wrangler prints)
 * and keeps the Worker's local KV in a temporary directory.
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localWorkerSecrets } from "../../tools/scripts/worker-dev.ts";
import { descendantsOf, type StartedProcess } from "../helpers/processes.ts";
import {
  documented,
  makeSandbox,
  runDocumented,
  type Sandbox,
  startDocumented,
} from "./documented.ts";

let sandbox: Sandbox;
let worker: StartedProcess;
let workerUrl: string;

beforeAll(async () => {
  sandbox = await makeSandbox();
  worker = startDocumented(documented("npm run worker:dev"), {
    sandbox,
    inProject: true,
    append: `-- --port 0 --persist-to ${sandbox.directory}/.wrangler-state`,
  });
  const [, url] = await worker.waitFor(/Ready on (http:\/\/127\.0\.0\.1:\d+)/);
  workerUrl = url!;
}, 300_000);

afterAll(async () => {
  await worker?.stop();
  await sandbox?.remove();
});

describe("npm run worker:dev and stepwise rotate, as the README shows them", () => {
  it("starts the Worker on loopback and says which admin token it takes", () => {
    expect(worker.output()).toContain("admin token stepwise-local-admin-token");
    expect(workerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("rotates a key from stdin with the documented token", async () => {
    const run = await runDocumented(
      [
        documented(
          "export STEPWISE_ROTATE_TOKEN=stepwise-local-admin-token STEPWISE_WORKER_URL=http://127.0.0.1:8788",
        ),
        documented('echo "sk-ant-local-test-key" | npx stepwise rotate anthropic --key-file -'),
      ],
      // The Worker listens where the test put it, not on 8788: the export says so last.
      { sandbox, append: [`STEPWISE_WORKER_URL=${workerUrl}`, undefined] },
    );
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/✔ anthropic rotated to version \d{13}-[0-9a-f]+/);
    expect(run.stdout).toMatch(/fingerprint sha256:[0-9a-f]{12}/);
    expect(run.output).not.toContain("sk-ant-local-test-key");
    const listed = await fetch(`${workerUrl}/keys/anthropic`, {
      headers: { authorization: "Bearer stepwise-local-admin-token" },
    });
    expect(listed.status).toBe(200);
    const version = /rotated to version (\S+)/.exec(run.stdout)?.[1];
    expect(await listed.json()).toMatchObject({ current: { version, state: "current" } });
  });

  it("refuses any other admin token", async () => {
    const response = await fetch(`${workerUrl}/keys`, {
      headers: { authorization: "Bearer not-the-token" },
    });
    expect(response.status).toBe(401);
  });

  // The Worker's tokens never reach a command line, where `ps` shows them to every user of the
  // machine: every process the script started (npm, tsx, wrangler, workerd) is read from /proc.
  it("keeps the tokens off every command line and removes their vars file when it stops", async () => {
    const commandLines = await Promise.all(
      (await descendantsOf(worker.child.pid!)).map(({ pid }) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        } catch {
          return []; // exited meanwhile
        }
      }),
    );
    const wrangler = commandLines.find(
      (argv) => argv.includes("dev") && argv.some((part) => part.endsWith("wrangler-dist/cli.js")),
    );
    expect(wrangler, commandLines.map((argv) => argv.join(" ")).join("\n")).toBeDefined();
    for (const argv of commandLines)
      for (const token of Object.values(localWorkerSecrets))
        expect(argv.join(" ")).not.toContain(token);
    const varsFile = wrangler![wrangler!.indexOf("--env-file") + 1] ?? "";
    expect(readFileSync(varsFile, "utf8")).toContain(
      `ROTATE_TOKEN=${localWorkerSecrets.ROTATE_TOKEN}`,
    );
    await worker.stop();
    expect(existsSync(varsFile)).toBe(false);
  });
});
