/**
 * The real build path: `wrangler deploy --dry-run --outdir <dir>` bundles the companion Worker,
 * and the program uploads exactly that module, by name and hash.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.ts";
import { buildStack } from "../../src/pulumi/stack.ts";
import { devStackByokKeys, installMocks, promiseOf, repoRoot, settle } from "./helpers.ts";

describe("the wrangler dry-run bundle", () => {
  it("is what the Worker script uploads: index.js as the main module, with its sha256", async () => {
    const outdir = mkdtempSync(path.join(tmpdir(), "stepwise-worker-"));
    await promisify(execFile)(
      process.execPath,
      [
        path.join(repoRoot, "node_modules/wrangler/bin/wrangler.js"),
        "deploy",
        "--dry-run",
        "--outdir",
        outdir,
      ],
      { cwd: repoRoot, env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" } },
    );
    const bundlePath = path.join(outdir, "index.js");
    const bundle = readFileSync(bundlePath);
    const { recorder } = await installMocks("build");
    const { config } = await loadConfig({ stack: "dev", cwd: repoRoot });

    const stack = buildStack(config, {
      secrets: { rotateToken: pulumi.secret("rotate"), byokKeys: devStackByokKeys },
      workerBundlePath: bundlePath,
    });
    await promiseOf(stack.outputs.kvNamespaceId as pulumi.Output<string>);
    await settle();

    expect(bundle.toString("utf8")).toMatch(/export\s*\{[^}]*as default/);
    expect(recorder.named("key-vault-worker").inputs).toMatchObject({
      contentFile: bundlePath,
      mainModule: "index.js",
      contentSha256: createHash("sha256").update(bundle).digest("hex"),
    });
  }, 90_000);
});
