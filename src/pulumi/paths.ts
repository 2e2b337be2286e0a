/**
 * @module
 * Where the components find the files they deploy from. Two roots, each found by walking up
 * (never from the working directory alone, which Pulumi sets to the program's folder or the
 * project's, depending on `main`):
 * - the **package root**, the folder of Stepwise's own `package.json` (this repository, or
 *   its folder under `node_modules/` in a team's project): the pre-built Worker bundle and the
 *   wrangler settings it was built with ship there, in `dist/worker-bundle/`;
 * - the **Pulumi project root**, the nearest folder with a `Pulumi.yaml` above the working
 *   directory: the stack files (`Pulumi.<stack>.yaml`) live there.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { InfraError } from "./errors.ts";

/** The folder of the nearest `package.json` above `start`: Stepwise's own, from its sources or dist/. */
export function findPackageRoot(start: string = fileURLToPath(import.meta.url)): string {
  for (let directory = path.dirname(start); ; directory = path.dirname(directory)) {
    if (existsSync(path.join(directory, "package.json"))) return directory;
    if (path.dirname(directory) === directory) {
      throw new InfraError({
        code: "package_files_missing",
        message: `no package.json above ${start}: reinstall Stepwise (npm install stepwise-gateway)`,
      });
    }
  }
}

/** Where Stepwise is installed (or checked out): its `dist/` and `wrangler.jsonc` are here. */
export const packageRoot = findPackageRoot();

/**
 * The folder of the nearest `Pulumi.yaml` at or above `from` (default: the working directory),
 * else `from` itself.
 */
export function pulumiProjectRoot(from: string = process.cwd()): string {
  for (let directory = path.resolve(from); ; directory = path.dirname(directory)) {
    if (existsSync(path.join(directory, "Pulumi.yaml"))) return directory;
    if (path.dirname(directory) === directory) return path.resolve(from);
  }
}

/**
 * Where the Worker bundle is read from: `$STEPWISE_WORKER_BUNDLE` when set (a CI job that builds
 * its own), else the bundle the package ships, `dist/worker-bundle/index.js` (`npm run build`
 * writes it with `wrangler deploy --dry-run`). Resolved at call time.
 */
export function defaultWorkerBundlePath(): string {
  return (
    process.env.STEPWISE_WORKER_BUNDLE ??
    path.join(packageRoot, "dist", "worker-bundle", "index.js")
  );
}

/**
 * The settings the Worker bundle was built with: `wrangler.jsonc` in a checkout (the source of
 * truth), else the copy the build ships beside the bundle, `dist/worker-bundle/wrangler.json`
 * (an installed package has no `wrangler.jsonc`).
 */
export const defaultWranglerConfigPath = existsSync(path.join(packageRoot, "wrangler.jsonc"))
  ? path.join(packageRoot, "wrangler.jsonc")
  : path.join(packageRoot, "dist", "worker-bundle", "wrangler.json");
