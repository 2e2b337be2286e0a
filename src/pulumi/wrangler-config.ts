/**
 * @module
 * The settings of `wrangler.jsonc` that the Pulumi-deployed Worker must share with what wrangler
 * itself would deploy: compatibility date and flags, the Analytics Engine datasets, the Durable
 * Object bindings and their migrations.
 */
import { readFileSync } from "node:fs";
import { InfraError } from "./errors.ts";
import { defaultWranglerConfigPath } from "./paths.ts";

/** A Durable Object binding: the name the code reads and the class it exports. */
export interface DurableObjectBinding {
  readonly name: string;
  readonly className: string;
}

/** One Durable Object migration (wrangler's `migrations` entry). */
export interface DurableObjectMigration {
  readonly tag: string;
  /** Classes created with SQLite storage. */
  readonly newSqliteClasses: readonly string[];
}

/** The settings of `wrangler.jsonc` that the Pulumi-deployed Worker must share. */
export interface WranglerSettings {
  readonly compatibilityDate: string;
  readonly compatibilityFlags: readonly string[];
  /** The Analytics Engine dataset bound as `EVENTS`, if any. */
  readonly eventsDataset: string | undefined;
  /** The Analytics Engine dataset bound as `DAILY_SUMMARY` (the cron's daily summary), if any. */
  readonly dailySummaryDataset: string | undefined;
  /** `durable_objects.bindings`, by binding name. */
  readonly durableObjects: readonly DurableObjectBinding[];
  /** `migrations`, oldest first. */
  readonly migrations: readonly DurableObjectMigration[];
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
  const datasetOf = (binding: string) => {
    const dataset = datasets.find((entry) => entry.binding === binding)?.dataset;
    return typeof dataset === "string" ? dataset : undefined;
  };
  return {
    compatibilityDate,
    compatibilityFlags: flags.filter((flag): flag is string => typeof flag === "string"),
    eventsDataset: datasetOf("EVENTS"),
    dailySummaryDataset: datasetOf("DAILY_SUMMARY"),
    durableObjects: readDurableObjects(raw, configPath),
    migrations: readMigrations(raw, configPath),
    raw,
  };
}

function readDurableObjects(
  raw: Record<string, unknown>,
  configPath: string,
): DurableObjectBinding[] {
  const section = raw.durable_objects as { bindings?: unknown } | undefined;
  const bindings = Array.isArray(section?.bindings) ? section.bindings : [];
  return bindings.map((entry: { name?: unknown; class_name?: unknown; script_name?: unknown }) => {
    if (typeof entry?.name !== "string" || typeof entry.class_name !== "string") {
      throw new InfraError({
        code: "wrangler_config_unreadable",
        message: `${configPath}: every durable_objects.bindings entry needs "name" and "class_name"`,
      });
    }
    if (entry.script_name !== undefined) {
      throw new InfraError({
        code: "wrangler_config_unreadable",
        message: `${configPath}: durable object ${entry.name} names script_name; the companion Worker's objects live in its own script`,
      });
    }
    return { name: entry.name, className: entry.class_name };
  });
}

function readMigrations(
  raw: Record<string, unknown>,
  configPath: string,
): DurableObjectMigration[] {
  const migrations = Array.isArray(raw.migrations) ? raw.migrations : [];
  return migrations.map((entry: Record<string, unknown>) => {
    const known = new Set(["tag", "new_sqlite_classes"]);
    const unknown = Object.keys(entry ?? {}).filter((key) => !known.has(key));
    if (typeof entry?.tag !== "string" || unknown.length > 0) {
      throw new InfraError({
        code: "wrangler_config_unreadable",
        message: `${configPath}: a migration needs a "tag" and may only add SQLite classes ("new_sqlite_classes"); got ${JSON.stringify(Object.keys(entry ?? {}))}`,
      });
    }
    const classes = Array.isArray(entry.new_sqlite_classes) ? entry.new_sqlite_classes : [];
    return {
      tag: entry.tag,
      newSqliteClasses: classes.filter((name): name is string => typeof name === "string"),
    };
  });
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
