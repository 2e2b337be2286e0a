/**
 * @module
 * The settings of `wrangler.jsonc` that the Pulumi-deployed Worker must share with what wrangler
 * itself would deploy: compatibility date and flags, the Analytics Engine dataset.
 */
import { readFileSync } from "node:fs";
import { InfraError } from "./errors.ts";
import { defaultWranglerConfigPath } from "./paths.ts";

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
