/**
 * @module
 * Source (2): the gateway's own logs, read through the official `cloudflare` SDK
 * (`client.aiGateway.logs.list`, auto-paginated), against Cloudflare or any server with the same
 * REST shape (the emulator's `/client/v4` subset) via `baseURL`.
 *
 * A log record maps to a `CallEvent` as follows: `created_at` → time, `id` → id and logId,
 * `step` → step (absent: 0 when the call succeeded, null when it failed), `provider`, `model`,
 * `status_code` → status (absent: 200 on success, 0 on failure), `success` → ok, `cached` →
 * cacheStatus HIT/MISS, `duration` → latencyMs, `tokens_in`/`tokens_out`/`cost`. The route comes
 * from the log's metadata key `route` (the client sends it in `cf-aig-metadata`), else
 * `unknown`; `mode` from metadata `mode`, else `universal`. A failed record gets errorCode
 * `http_<status>` (or `failed` without a status). Records of the wrong shape are counted as
 * malformed (numbered in the order read).
 */
import type { APIError } from "cloudflare";
import { z } from "zod";
import type { CallEvent } from "../../client/event.ts";
import { AnalyticsError } from "../errors.ts";
import type { TimeWindow } from "../window.ts";
import { type EventSource, SourceTally } from "./types.ts";

export interface GatewayLogsOptions {
  /** Cloudflare account id. */
  readonly accountId: string;
  /** Gateway whose logs are read. */
  readonly gatewayId: string;
  /** API token with AI Gateway read permission; never logged or returned. */
  readonly apiToken: string;
  /** API base (default Cloudflare's `https://api.cloudflare.com/client/v4`). */
  readonly baseURL?: string;
  /** Records per page (default 50). */
  readonly perPage?: number;
  /** Ask the API only for logs in this window (the aggregation filters exactly anyway). */
  readonly window?: TimeWindow;
  /** Fetch implementation (default: the global `fetch`, resolved at call time). */
  readonly fetch?: typeof globalThis.fetch;
  /** SDK retries on 429/5xx (default 2). */
  readonly maxRetries?: number;
  /** Malformed records kept as samples (default 5). */
  readonly malformedSamples?: number;
}

/** Shape of one log record as the analytics needs it (SDK `LogListResponse`). */
export const gatewayLogSchema = z.object({
  id: z.string(),
  created_at: z.string().refine((value) => !Number.isNaN(Date.parse(value)), "not a date-time"),
  provider: z.string(),
  model: z.string(),
  duration: z.number().nonnegative(),
  success: z.boolean(),
  cached: z.boolean(),
  status_code: z.number().int().nonnegative().optional(),
  tokens_in: z.number().int().nonnegative().nullable(),
  tokens_out: z.number().int().nonnegative().nullable(),
  cost: z.number().nonnegative().optional(),
  step: z.number().int().nonnegative().optional(),
  metadata: z.string().optional(),
  response_content_type: z.string().optional(),
});

export type GatewayLog = z.infer<typeof gatewayLogSchema>;

/** The gateway logs as an event source. */
export function gatewayLogsSource(options: GatewayLogsOptions): EventSource {
  const stats = new SourceTally(options.malformedSamples);
  return {
    kind: "logs",
    name: `gateway logs ${options.gatewayId}`,
    stats,
    async *events(): AsyncGenerator<CallEvent> {
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
      const filters = windowFilters(options.window);
      const logs = client.aiGateway.logs.list(options.gatewayId, {
        account_id: options.accountId,
        page: 1,
        per_page: options.perPage ?? 50,
        order_by: "created_at",
        order_by_direction: "asc",
        ...(filters.length > 0 ? { filters } : {}),
      });
      try {
        for await (const record of logs) {
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
          yield logToEvent(parsed.data, options.gatewayId);
        }
      } catch (error) {
        throw logsApiError(error, options, Cloudflare.APIError);
      }
    },
  };
}

/** Maps one gateway log record to a `CallEvent` (see the module doc). */
export function logToEvent(log: GatewayLog, gatewayId: string): CallEvent {
  const metadata = parseMetadata(log.metadata);
  const status = log.status_code ?? (log.success ? 200 : 0);
  const mode = metadata.mode;
  return {
    time: new Date(log.created_at).toISOString(),
    id: log.id,
    gateway: gatewayId,
    route: typeof metadata.route === "string" && metadata.route !== "" ? metadata.route : "unknown",
    mode: mode === "dynamic" || mode === "fetch" ? mode : "universal",
    step: log.step ?? (log.success ? 0 : null),
    provider: log.provider || null,
    model: log.model || null,
    status,
    ok: log.success,
    cacheStatus: log.cached ? "HIT" : "MISS",
    latencyMs: log.duration,
    tokensIn: log.tokens_in,
    tokensOut: log.tokens_out,
    cost: log.cost ?? null,
    errorCode: log.success ? null : log.status_code ? `http_${log.status_code}` : "failed",
    logId: log.id,
    attempts: 1,
    streamed: log.response_content_type?.includes("event-stream") ?? false,
  };
}

function parseMetadata(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function windowFilters(
  window: TimeWindow | undefined,
): Array<{ key: "created_at"; operator: "gt" | "lt"; value: string[] }> {
  const filters: Array<{ key: "created_at"; operator: "gt" | "lt"; value: string[] }> = [];
  if (window?.since != null) {
    // `gt` is strict and `since` is inclusive: ask from one millisecond before.
    filters.push({
      key: "created_at",
      operator: "gt",
      value: [new Date(window.since - 1).toISOString()],
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
