/**
 * Rotating a key by following the README: `npm run worker:dev` starts the companion Worker under
 * `wrangler dev` with the local admin token the docs name, and the README's two lines rotate a key
 * read from stdin. The test picks the port at run time (`--port 0`, then the URL wrangler prints)
 * and keeps the Worker's local KV in a temporary directory.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StartedProcess } from "../helpers/processes.ts";
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
        documented('echo "sk-ant-local-test-key" | stepwise rotate anthropic --key-file -'),
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
});
