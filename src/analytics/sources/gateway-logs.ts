/**
 * @module
 * Source (2): the gateway's own logs, read through the official `cloudflare` SDK
 * (`client.aiGateway.logs.list`), against Cloudflare or any server with the same REST shape (the
 * emulator's `/client/v4` subset) via `baseURL`. Records are grouped into calls by event id
 * (`log-records.ts`), so availability and fallback rate count calls, as the client's events do.
 *
 * Streaming and bounded: pages are read oldest first with a time cursor (`log-pages.ts`), and a
 * call is handed on once the pull has moved `callHorizonMs` past its last record (or when more
 * than `maxPendingCalls` calls are open), so memory holds the calls in flight, not the logs.
 * Records of the wrong shape are counted as malformed (numbered in the order read).
 */
import type { APIError } from "cloudflare";
import type { AnalyticsEvent } from "../dimensions.ts";
import { AnalyticsError } from "../errors.ts";
import type { TimeWindow } from "../window.ts";
import { type LogCursor, pagedRecords } from "./log-pages.ts";
import { callKeyOf, type GatewayLog, gatewayLogSchema, recordsToCall } from "./log-records.ts";
import { type EventSource, SourceTally } from "./types.ts";

export type { LogCursor } from "./log-pages.ts";
export {
  callKeyOf,
  type GatewayLog,
  gatewayLogSchema,
  logToEvent,
  recordsToCall,
} from "./log-records.ts";

/** How far past a call's last record the pull goes before the call is complete (5 minutes). */
export const defaultCallHorizonMs = 300_000;

/** Progress of a pull, after each page. */
export interface LogsProgress {
  readonly records: number;
  readonly calls: number;
  readonly pages: number;
  /** The cursor reached: pass it as `resumeFrom` to continue from here. */
  readonly cursor: LogCursor | null;
}

export interface GatewayLogsOptions {
  /** Cloudflare account id. */
  readonly accountId: string;
  /** Gateway whose logs are read. */
  readonly gatewayId: string;
  /** API token with AI Gateway read permission; never logged or returned. */
  readonly apiToken: string;
  /** API base (default Cloudflare's `https://api.cloudflare.com/client/v4`). */
  readonly baseURL?: string;
  /** Records per page (default 50, the API's maximum). */
  readonly perPage?: number;
  /** Ask the API only for logs in this window (the aggregation filters exactly anyway). */
  readonly window?: TimeWindow;
  /** Fetch implementation (default: the global `fetch`, resolved at call time). */
  readonly fetch?: typeof globalThis.fetch;
  /** SDK retries on 429/5xx (default 2). */
  readonly maxRetries?: number;
  /** Tries of a page again from the same cursor after the SDK gave up (default 3). */
  readonly pageRetries?: number;
  /** Waits between page tries (default a timer). */
  readonly sleep?: (milliseconds: number) => Promise<void>;
  /** Continue a pull from where an earlier one stopped. */
  readonly resumeFrom?: LogCursor;
  /** One record per event instead of one call per event id (default false). */
  readonly perRecord?: boolean;
  /** See the module doc (defaults {@link defaultCallHorizonMs} and 100,000). */
  readonly callHorizonMs?: number;
  readonly maxPendingCalls?: number;
  /** Called after each page. */
  readonly onProgress?: (progress: LogsProgress) => void;
  /** Clock for the window's end when it is open (default `Date.now`). */
  readonly now?: () => number;
  /** Malformed records kept as samples (default 5). */
  readonly malformedSamples?: number;
}

/** The gateway logs as an event source: one event per call. */
export function gatewayLogsSource(options: GatewayLogsOptions): EventSource {
  const stats = new SourceTally(options.malformedSamples);
  return {
    kind: "logs",
    name: `gateway logs ${options.gatewayId}`,
    stats,
    async *events(): AsyncGenerator<AnalyticsEvent> {
      // Loaded on first use: importing the SDK takes seconds, and only this source needs it.
      const { default: Cloudflare } = await import("cloudflare");
      const client = new Cloudflare({
        apiToken: options.apiToken,
        // Only the token authenticates; ignore CLOUDFLARE_API_KEY / CLOUDFLARE_EMAIL in the env.
        apiKey: null,
        apiEmail: null,
        userServiceKey: null,
        baseURL: options.baseURL ?? null,
        fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
        maxRetries: options.maxRetries ?? 2,
      });
      const perPage = options.perPage ?? 50;
      const pending = new Map<string, { records: GatewayLog[]; last: number }>();
      const horizon = options.callHorizonMs ?? defaultCallHorizonMs;
      const maxPending = options.maxPendingCalls ?? 100_000;
      let calls = 0;
      let pages = 0;
      const complete = (key: string) => {
        const call = pending.get(key);
        pending.delete(key);
        calls += 1;
        return recordsToCall(call?.records ?? [], options.gatewayId);
      };
      const records = pagedRecords(
        async (request) => {
          const filters = windowFilters({ since: request.after, until: request.before }, true);
          const page = await client.aiGateway.logs.list(options.gatewayId, {
            account_id: options.accountId,
            page: request.page,
            per_page: perPage,
            order_by: "created_at",
            order_by_direction: "asc",
            ...(filters.length > 0 ? { filters } : {}),
          });
          return page.result as unknown[];
        },
        {
          perPage,
          since: options.window?.since ?? null,
          until: options.window?.until ?? (options.now ?? Date.now)(),
          ...(options.resumeFrom ? { resumeFrom: options.resumeFrom } : {}),
          ...(options.pageRetries === undefined ? {} : { pageRetries: options.pageRetries }),
          ...(options.sleep ? { sleep: options.sleep } : {}),
          // A refusal (4xx other than 429) will not change on a second try.
          isRetryable: (error) =>
            !(
              error instanceof Cloudflare.APIError &&
              error.status !== undefined &&
              error.status < 500 &&
              error.status !== 429
            ),
          onPage: (cursor) => {
            pages += 1;
            options.onProgress?.({ records: stats.records, calls, pages, cursor });
          },
        },
      );
      try {
        for await (const record of records) {
          stats.records += 1;
          const parsed = gatewayLogSchema.safeParse(record);
          if (!parsed.success) {
            const issue = parsed.error.issues[0];
            stats.reject(
              stats.records,
              `${issue?.path.join(".") || "(record)"}: ${issue?.message}`,
            );
            continue;
          }
          const log = parsed.data;
          const time = Date.parse(log.created_at);
          const key = options.perRecord ? `${log.id}\u0000record` : callKeyOf(log);
          const call = pending.get(key);
          if (call) {
            call.records.push(log);
            call.last = Math.max(call.last, time);
          } else pending.set(key, { records: [log], last: time });
          // Calls the pull has moved well past are complete (the map keeps first-seen order).
          for (const [openKey, open] of pending) {
            if (open.last >= time - horizon && pending.size <= maxPending) break;
            if (openKey === key) continue;
            yield complete(openKey);
          }
        }
        for (const key of [...pending.keys()]) yield complete(key);
      } catch (error) {
        throw logsApiError(error, options, Cloudflare.APIError);
      }
    },
  };
}

function windowFilters(
  window: TimeWindow | undefined,
  exclusiveSince = false,
): Array<{ key: "created_at"; operator: "gt" | "lt"; value: string[] }> {
  const filters: Array<{ key: "created_at"; operator: "gt" | "lt"; value: string[] }> = [];
  if (window?.since != null) {
    // `gt` is strict and `since` is inclusive: ask from one millisecond before (the pager
    // passes its cursor already moved back).
    filters.push({
      key: "created_at",
      operator: "gt",
      value: [new Date(exclusiveSince ? window.since : window.since - 1).toISOString()],
    });
  }
  if (window?.until != null) {
    filters.push({
      key: "created_at",
      operator: "lt",
      value: [new Date(window.until).toISOString()],
    });
  }
  return filters;
}

function logsApiError(
  error: unknown,
  options: GatewayLogsOptions,
  apiError: abstract new (...args: never[]) => APIError,
): AnalyticsError {
  if (AnalyticsError.isInstance(error)) return error;
  const where = `gateway ${options.gatewayId} in account ${options.accountId}`;
  if (error instanceof apiError && error.status !== undefined) {
    const hint =
      error.status === 401 || error.status === 403
        ? "Check that CLOUDFLARE_API_TOKEN is set and has the AI Gateway Read permission."
        : error.status === 404
          ? "Check the account id and the gateway id."
          : "Try again later; the API may be unavailable.";
    const detail = error.errors?.map((item) => item.message).join("; ") || error.message;
    return new AnalyticsError({
      code: "analytics_logs_api_failed",
      message: `Reading the logs of ${where} failed with HTTP ${error.status} (${detail}). ${hint}`,
      cause: error,
    });
  }
  return new AnalyticsError({
    code: "analytics_logs_api_failed",
    message: `Reading the logs of ${where} failed: ${String((error as Error)?.message ?? error).replace(/\.$/, "")}. Check the API base URL (${options.baseURL ?? "https://api.cloudflare.com/client/v4"}) and the network.`,
    cause: error,
  });
}
