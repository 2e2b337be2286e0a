/**
 * @module
 * A small client of the Workers Analytics Engine SQL API:
 * `POST {base}/accounts/{account}/analytics_engine/sql` with the query as the body and
 * `Authorization: Bearer <token>`; answers in `FORMAT JSONEachRow` (one JSON object a line) are
 * parsed into rows. It counts the queries sent and the bytes received, retries 429 and 5xx
 * answers and network errors (twice by default, 1 s then 2 s apart), and turns every other
 * failure into an `AnalyticsError` that names the fix. The token is never logged or returned.
 */
import { AnalyticsError } from "../errors.ts";

/** Cloudflare's API base. */
export const cloudflareApiBase = "https://api.cloudflare.com/client/v4";

export interface SqlApiOptions {
  /** Cloudflare account id (32 hex characters). */
  readonly accountId: string;
  /** API token with the Account Analytics Read permission. */
  readonly apiToken: string;
  /** API base (default {@link cloudflareApiBase}). */
  readonly baseURL?: string;
  /** Fetch implementation (default: the global `fetch`, resolved at call time). */
  readonly fetch?: typeof globalThis.fetch;
  /** Retries of a 429, a 5xx or a network error (default 2). */
  readonly maxRetries?: number;
  /** Waits between retries (default: a timer); tests pass one that does not wait. */
  readonly sleep?: (milliseconds: number) => Promise<void>;
}

/** One result row, columns by name. */
export type SqlRow = Readonly<Record<string, unknown>>;

/** Sends queries and keeps count of what came back. */
export class SqlApiClient {
  /** Queries answered. */
  queries = 0;
  /** Bytes of the answers' bodies. */
  bytes = 0;
  /** Rows received. */
  rows = 0;
  readonly #options: SqlApiOptions;

  constructor(options: SqlApiOptions) {
    this.#options = options;
  }

  /** The endpoint queries go to. */
  get url(): string {
    const base = (this.#options.baseURL ?? cloudflareApiBase).replace(/\/+$/, "");
    return `${base}/accounts/${encodeURIComponent(this.#options.accountId)}/analytics_engine/sql`;
  }

  /** Runs one query (ending in `FORMAT JSONEachRow`) and returns its rows. */
  async query(sql: string): Promise<SqlRow[]> {
    const text = await this.#send(sql);
    const rows: SqlRow[] = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw this.#failure(`answered a line that is not JSON (${line.slice(0, 80)})`);
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw this.#failure(`answered a line that is not a row (${line.slice(0, 80)})`);
      }
      rows.push(value as SqlRow);
    }
    this.rows += rows.length;
    return rows;
  }

  async #send(sql: string): Promise<string> {
    const maxRetries = this.#options.maxRetries ?? 2;
    const sleep =
      this.#options.sleep ??
      ((milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds)));
    for (let attempt = 0; ; attempt += 1) {
      let response: Response;
      try {
        response = await (this.#options.fetch ?? globalThis.fetch)(this.url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${this.#options.apiToken}`,
            "content-type": "text/plain; charset=utf-8",
          },
          body: sql,
        });
      } catch (error) {
        if (attempt < maxRetries) {
          await sleep(1000 * 2 ** attempt);
          continue;
        }
        throw this.#failure(
          `could not be reached (${(error as Error).message}). Check the network and the API base URL (${this.url})`,
          error,
        );
      }
      const body = await response.text();
      this.bytes += Buffer.byteLength(body);
      if (response.ok) {
        this.queries += 1;
        return body;
      }
      if ((response.status === 429 || response.status >= 500) && attempt < maxRetries) {
        await sleep(1000 * 2 ** attempt);
        continue;
      }
      throw this.#failure(
        `answered HTTP ${response.status} (${detail(body)}). ${hint(response.status)}`,
      );
    }
  }

  #failure(why: string, cause?: unknown): AnalyticsError {
    return new AnalyticsError({
      code: "analytics_sql_api_failed",
      message: `The Analytics Engine SQL API of account ${this.#options.accountId} ${why}`,
      cause,
    });
  }
}

function detail(body: string): string {
  const text = body.trim().replace(/\s+/g, " ");
  return text === "" ? "no message" : text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function hint(status: number): string {
  if (status === 401 || status === 403)
    return "Check that CLOUDFLARE_API_TOKEN is set and has the Account Analytics Read permission.";
  if (status === 404) return "Check the account id (--account-id or CLOUDFLARE_ACCOUNT_ID).";
  if (status === 429 || status >= 500) return "Try again later; the API is busy or unavailable.";
  return "Check the dataset name (--dataset; the Worker writes to stepwise_events by default).";
}
