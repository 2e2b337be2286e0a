/**
 * The deployable artefacts of the companion Worker: `wrangler deploy --dry-run` bundles it (that
 * bundle is what Pulumi uploads), the bundle runs in workerd, and the committed
 * `worker-configuration.d.ts` matches `wrangler.jsonc` (no drift).
 */
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBundleInputs, unwantedBundleInputs } from "../../tools/bench/worker-bundle-inputs.ts";
import { checkWorkerTypes } from "../../tools/scripts/worker-types.ts";
import {
  buildWorkerBundle,
  type RunningWorker,
  startWorker,
  type WorkerBundle,
} from "./worker-harness.ts";

let bundle: WorkerBundle;
let worker: RunningWorker | undefined;

beforeAll(async () => {
  bundle = await buildWorkerBundle();
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await bundle?.remove();
});

describe("companion Worker bundle", () => {
  it("wrangler bundles src/worker with the KV, Durable Object and Analytics Engine bindings", () => {
    expect(existsSync(bundle.scriptPath)).toBe(true);
    expect(bundle.output).toMatch(/env\.KEYS .*KV Namespace/);
    expect(bundle.output).toMatch(/env\.KEY_LEDGER \(KeyLedger\).*Durable Object/);
    expect(bundle.output).toMatch(/env\.APP_LIMITER \(AppLimiter\).*Durable Object/);
    expect(bundle.output).toMatch(/env\.EVENTS \(stepwise_events\).*Analytics Engine Dataset/);
  });

  // The Worker ships what it runs: its view is JSON (no YAML parser, no config parser), and zod
  // without its translations (issue #23 measured 647 kB when both were in).
  it("carries only what the Worker runs: no yaml, no config parser, no zod", async () => {
    const inputs = await readBundleInputs(bundle.metafilePath);
    expect(inputs.has("src/worker/index.ts")).toBe(true);
    expect(inputs.has("src/config/worker-view-read.ts")).toBe(true);
    expect(unwantedBundleInputs(inputs)).toEqual([]);
    // The rule holds zod out: a bundle that carried it would be named.
    expect(unwantedBundleInputs(new Map([["node_modules/zod/v4/classic/schemas.js", 1]]))).toEqual([
      expect.stringContaining("zod"),
    ]);
  });

  it("the bundle runs in workerd and explains a missing STEPWISE_CONFIG instead of failing blindly", async () => {
    worker = await startWorker(bundle.scriptPath, {
      ROTATE_TOKEN: "bundle-test-admin-token",
      GATEWAY_URL: "http://127.0.0.1:9",
      STEPWISE_CONFIG: "",
    });
    const response = await fetch(`${worker.url}/keys`, {
      headers: { authorization: "Bearer bundle-test-admin-token" },
    });
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("config_invalid");
    expect(body.error.message).toContain("STEPWISE_CONFIG");
  }, 60_000);

  it("worker-configuration.d.ts is what `npm run cf-typegen` generates from wrangler.jsonc", async () => {
    const { upToDate } = await checkWorkerTypes();
    expect(upToDate, "run `npm run cf-typegen` and commit worker-configuration.d.ts").toBe(true);
  }, 60_000);
});
