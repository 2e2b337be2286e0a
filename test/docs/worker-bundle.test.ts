/**
 * The Worker bundle commands of the README (`npm run worker:bundle`) and docs/pulumi.md
 * (`npx wrangler deploy --dry-run --outdir dist/worker-bundle`), run as written in a copy of the
 * project (its sources and packages linked), so the bundle they write lands in the copy's
 * `dist/worker-bundle/index.js` — where the Pulumi program reads it — and not in this tree's,
 * which `npm run build` writes for the package (tools/build/build.ts).
 */
import { existsSync } from "node:fs";
import { cp, rm, symlink } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerBuildCommand } from "../../src/pulumi/worker-bundle.ts";
import { documented, makeSandbox, projectRoot, runDocumented, type Sandbox } from "./documented.ts";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await makeSandbox([
    "Pulumi.dev.yaml",
    "package.json",
    "wrangler.jsonc",
    "tsconfig.json",
  ]);
  // A copy of the project has the project's node_modules, not a user's (the package linked).
  await rm(path.join(sandbox.directory, "node_modules"), { recursive: true, force: true });
  for (const linked of ["src", "node_modules"])
    await symlink(path.join(projectRoot, linked), path.join(sandbox.directory, linked));
  await cp(
    path.join(projectRoot, "worker-configuration.d.ts"),
    path.join(sandbox.directory, "worker-configuration.d.ts"),
  );
});

afterAll(async () => {
  await sandbox?.remove();
});

const bundle = () => path.join(sandbox.directory, "dist/worker-bundle/index.js");

describe("bundling the companion Worker, as the docs show it", () => {
  it("npm run worker:bundle writes dist/worker-bundle/index.js with the KV binding", async () => {
    const run = await runDocumented(documented("npm run worker:bundle"), { sandbox });
    expect(run.code, run.output).toBe(0);
    expect(existsSync(bundle())).toBe(true);
    expect(run.output).toMatch(/env\.KEYS .*KV Namespace/);
  }, 180_000);

  it("docs/pulumi.md's wrangler command (the one the Pulumi program names) does the same", async () => {
    const command = documented("npx wrangler deploy --dry-run --outdir dist/worker-bundle");
    expect(command).toBe(workerBuildCommand);
    const run = await runDocumented(command, { sandbox });
    expect(run.code, run.output).toBe(0);
    expect(existsSync(bundle())).toBe(true);
  }, 180_000);
});
