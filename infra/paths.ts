/**
 * @module
 * Where the program finds the files it deploys from, resolved from this file (not the working
 * directory, which Pulumi sets to the program's folder or the project's, depending on `main`).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (where `Pulumi.yaml`, `wrangler.jsonc` and `dist/` live). */
export const projectRoot = fileURLToPath(new URL("..", import.meta.url));

/**
 * Where the Worker bundle is read from: `$STEPWISE_WORKER_BUNDLE` when set (a CI job that builds
 * elsewhere), else where `wrangler deploy --dry-run --outdir dist/worker-bundle` writes it. Resolved at
 * call time.
 */
export function defaultWorkerBundlePath(): string {
  return (
    process.env.STEPWISE_WORKER_BUNDLE ??
    path.join(projectRoot, "dist", "worker-bundle", "index.js")
  );
}

export const defaultWranglerConfigPath = path.join(projectRoot, "wrangler.jsonc");
