/**
 * @module
 * What `stepwise report` takes: its parsed command-line options and what it reads from its
 * surroundings (tests inject these). Apart, so that the command (`report.ts`) and the sources
 * it reads (`report-sources.ts`) share them without importing each other.
 */
import type { PackageResolver } from "../optional-packages.ts";

/** What the command reads from its surroundings; tests inject these. */
export interface ReportCommandDependencies {
  /** Clock in epoch ms (default `Date.now`). */
  readonly now?: () => number;
  /** Environment for CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_BASE_URL. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where `-` reads from (default `process.stdin`). */
  readonly stdin?: NodeJS.ReadableStream;
  /** Where the report is written (default `process.stdout`). */
  readonly write?: (text: string) => void;
  /** Fetch for the logs and SQL APIs (default the global `fetch`). */
  readonly fetch?: typeof globalThis.fetch;
  /** Waits between API retries (default a timer). */
  readonly sleep?: (milliseconds: number) => Promise<void>;
  /**
   * Where the progress line of a long logs pull goes (default: stderr when it is a terminal,
   * rewritten in place; nowhere otherwise, so cron logs stay clean).
   */
  readonly progress?: (line: string) => void;
  /** Where a note goes, e.g. that the DuckDB engine handed a file to the JS one (default stderr). */
  readonly note?: (line: string) => void;
  /** Whether an optional package is installed (default: Node's resolution). */
  readonly resolvePackage?: PackageResolver;
}

export interface ReportOptions {
  source: "events" | "logs" | "analytics-engine";
  /** Who reads an events file: DuckDB, the JS reader, or DuckDB for a large file when installed. */
  engine: "duckdb" | "js" | "auto";
  gateway: string[];
  route: string[];
  by: string;
  since?: string;
  until?: string;
  bucket?: string;
  compare?: string;
  json?: boolean;
  csv?: boolean;
  html?: string;
  failAbove: string[];
  failBelow: string[];
  accountId?: string;
  baseUrl?: string;
  perPage: string;
  dataset?: string;
  config?: string;
  reasonsFromLogs?: boolean;
}
