/**
 * @module
 * The Worker bundle that `npx wrangler deploy --dry-run --outdir dist/worker-bundle` writes, and its
 * sha256. Read before any resource is created, so a missing build fails the program up front,
 * with the command that fixes it.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { InfraError } from "./errors.ts";
import { defaultWorkerBundlePath } from "./paths.ts";

/** The command that builds the bundle, quoted in error messages and docs. */
export const workerBuildCommand = "npx wrangler deploy --dry-run --outdir dist/worker-bundle";

export interface WorkerBundle {
  /** Absolute path of the bundle's main module. */
  readonly path: string;
  /** Module name the Worker runtime loads first (`index.js`). */
  readonly mainModule: string;
  /** Hex sha256 of the bundle, so Pulumi uploads it again exactly when it changes. */
  readonly sha256: string;
}

/**
 * Checks that the bundle exists and hashes it.
 * @throws {InfraError} `worker_bundle_missing`, naming the build command.
 */
export function readWorkerBundle(bundlePath: string = defaultWorkerBundlePath()): WorkerBundle {
  let bytes: Buffer;
  try {
    bytes = readFileSync(bundlePath);
  } catch (error) {
    throw new InfraError({
      code: "worker_bundle_missing",
      message: `the companion Worker bundle ${bundlePath} cannot be read (${(error as NodeJS.ErrnoException).code ?? error}): build it first with \`${workerBuildCommand}\``,
      cause: error,
    });
  }
  return {
    path: path.resolve(bundlePath),
    mainModule: path.basename(bundlePath),
    sha256: createHash("sha256").update(bytes).digest("hex"),
  };
}
