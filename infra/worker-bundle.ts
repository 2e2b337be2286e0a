/**
 * @module
 * What the Pulumi program needs from the Worker's build: the bundle that
 * `npx wrangler deploy --dry-run --outdir dist/worker` writes (and its sha256), and the settings
 * in `wrangler.jsonc` that must match what wrangler itself would deploy (compatibility date and
 * flags, the Analytics Engine dataset). Reading both before any resource is created makes a
 * missing build fail the program up front, with the command that fixes it.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { InfraError } from "./errors.ts";

/** The repository root (where `Pulumi.yaml`, `wrangler.jsonc` and `dist/` live). */
export const projectRoot = fileURLToPath(new URL("..", import.meta.url));

/**
 * Where the Worker bundle is read from: `$STEPWISE_WORKER_BUNDLE` when set (a CI job that builds
 * elsewhere), else where `wrangler deploy --dry-run --outdir dist/worker` writes it. Resolved at
 * call time.
 */
export function defaultWorkerBundlePath(): string {
  return process.env.STEPWISE_WORKER_BUNDLE ?? path.join(projectRoot, "dist", "worker", "index.js");
}
export const defaultWranglerConfigPath = path.join(projectRoot, "wrangler.jsonc");

/** The command that builds the bundle, quoted in error messages and docs. */
export const workerBuildCommand = "npx wrangler deploy --dry-run --outdir dist/worker";

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

/** The settings of `wrangler.jsonc` that the Pulumi-deployed Worker must share. */
export interface WranglerSettings {
  readonly compatibilityDate: string;
  readonly compatibilityFlags: readonly string[];
  /** The Analytics Engine dataset bound as `EVENTS`, if any. */
  readonly eventsDataset: string | undefined;
  /** The raw parsed file, for contract tests. */
  readonly raw: Record<string, unknown>;
}

/**
 * Reads `wrangler.jsonc` (JSON with comments and trailing commas).
 * @throws {InfraError} `wrangler_config_unreadable` when it is missing, not JSONC, or has no
 *   `compatibility_date`.
 */
export function readWranglerSettings(
  configPath: string = defaultWranglerConfigPath,
): WranglerSettings {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(stripJsonComments(readFileSync(configPath, "utf8"))) as Record<
      string,
      unknown
    >;
  } catch (error) {
    throw new InfraError({
      code: "wrangler_config_unreadable",
      message: `cannot read ${configPath} as JSONC (${error instanceof Error ? error.message : error}): the Worker's compatibility date comes from it`,
      cause: error,
    });
  }
  const compatibilityDate = raw.compatibility_date;
  if (typeof compatibilityDate !== "string") {
    throw new InfraError({
      code: "wrangler_config_unreadable",
      message: `${configPath} has no "compatibility_date": add one (e.g. "2026-04-01") so wrangler and Pulumi deploy the same runtime`,
    });
  }
  const flags = Array.isArray(raw.compatibility_flags) ? raw.compatibility_flags : [];
  const datasets = Array.isArray(raw.analytics_engine_datasets)
    ? (raw.analytics_engine_datasets as { binding?: unknown; dataset?: unknown }[])
    : [];
  const events = datasets.find((entry) => entry.binding === "EVENTS");
  return {
    compatibilityDate,
    compatibilityFlags: flags.filter((flag): flag is string => typeof flag === "string"),
    eventsDataset: typeof events?.dataset === "string" ? events.dataset : undefined,
    raw,
  };
}

/**
 * Removes `//` and `/* *\/` comments and trailing commas outside strings, turning JSONC into
 * JSON. Small on purpose: `wrangler.jsonc` is the only JSONC file this program reads.
 */
export function stripJsonComments(text: string): string {
  return withoutTrailingCommas(withoutComments(text));
}

function withoutComments(text: string): string {
  let result = "";
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    const next = text[index + 1];
    if (char === '"') {
      const end = endOfString(text, index);
      result += text.slice(index, end);
      index = end;
    } else if (char === "/" && next === "/") {
      while (index < text.length && text[index] !== "\n") index++;
    } else if (char === "/" && next === "*") {
      const end = text.indexOf("*/", index + 2);
      index = end === -1 ? text.length : end + 2;
    } else {
      result += char;
      index++;
    }
  }
  return result;
}

function withoutTrailingCommas(text: string): string {
  let result = "";
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '"') {
      const end = endOfString(text, index);
      result += text.slice(index, end);
      index = end;
      continue;
    }
    if (char === ",") {
      const rest = text.slice(index + 1).trimStart();
      if (rest.startsWith("}") || rest.startsWith("]")) {
        index++;
        continue;
      }
    }
    result += char;
    index++;
  }
  return result;
}

function endOfString(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length) {
    if (text[index] === "\\") index += 2;
    else if (text[index] === '"') return index + 1;
    else index++;
  }
  return text.length;
}
