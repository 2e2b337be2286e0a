/**
 * @module
 * Writes a gateway log record for one step of a request (served, failed or cached) and charges
 * its cost to the gateway's spend limits.
 */
import type { GatewayLogRecord } from "../features/log-store.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import type { CredentialSource } from "../step/credentials.ts";
import type { ResponseUsage } from "../step/step-target.ts";
import { costOf } from "./usage.ts";

/** The endpoint family, logged as `request_type` (the `ai-*` ones are the REST API's). */
export type RequestType =
  | "universal"
  | "provider"
  | "compat"
  | "dynamic"
  | "ai-run"
  | "ai-chat-completions"
  | "ai-responses"
  | "ai-messages";

/** Which step produced a response, for headers and logs. */
export interface ServingStep {
  /** 0-based universal step, or model node position in a dynamic route. */
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  readonly endpoint: string;
  readonly requestType: RequestType;
  readonly requestBytes: number;
  readonly requestContentType?: string;
  /** The request as the client sent it for this step (a universal step's `query`), for the log. */
  readonly requestBody?: Buffer;
  /** Where the provider key came from; Unified Billing calls are logged `wholesale`. */
  readonly credential?: CredentialSource | undefined;
}

/** What one logged step came to. */
export interface StepRecord {
  readonly logId: string;
  readonly status: number;
  readonly success: boolean;
  readonly cached: boolean;
  readonly usage: ResponseUsage;
  readonly attempts: number;
  readonly responseBytes: number;
  readonly responseContentType?: string;
  readonly error?: string;
  /** The response body the client got (a stream's first bytes), for the log. */
  readonly responseBody?: Buffer;
}

/** The outcome of a delivered step, for callers that charge it elsewhere (rate nodes). */
export interface DeliveredStep {
  readonly success: boolean;
  readonly cost: number | undefined;
}

/**
 * Logs a step (when the request is logged) and charges its cost to spend limits (unless it
 * came from the cache). Returns the cost.
 */
export function recordStep(
  call: GatewayCall,
  serving: ServingStep,
  record: StepRecord,
): DeliveredStep {
  const { services, gateway, directives } = call;
  const now = services.now();
  const cost = record.cached
    ? 0
    : costOf(services.prices, serving.provider, serving.model, record.usage, directives.customCost);
  if (!record.cached && cost !== undefined && cost > 0) {
    if (serving.credential === "unified-billing") services.credits.spend(cost);
    const spendLimits = gateway.settings.spend_limits;
    if (spendLimits?.enabled) {
      gateway.spend.record(
        spendLimits.rules,
        { provider: serving.provider, model: serving.model, metadata: directives.metadata ?? {} },
        cost,
        now,
      );
    }
  }
  if (call.collectLogs) writeLog(call, serving, record, cost, now);
  return { success: record.success, cost };
}

/** Builds the record field by field (no spreads: this runs for every logged step). */
function writeLog(
  call: GatewayCall,
  serving: ServingStep,
  record: StepRecord,
  cost: number | undefined,
  now: number,
): void {
  const { gateway, directives } = call;
  const log: Mutable<GatewayLogRecord> = {
    id: record.logId,
    created_at: new Date(call.startedAt).toISOString(),
    provider: serving.provider,
    model: serving.model,
    path: serving.endpoint,
    duration: Math.max(0, now - call.startedAt),
    success: record.success,
    cached: record.cached,
    status_code: record.status,
    tokens_in: record.usage.tokensIn,
    tokens_out: record.usage.tokensOut,
    custom_cost: directives.customCost !== undefined,
    request_type: serving.requestType,
    step: serving.step,
    request_size: serving.requestBytes,
    response_size: record.responseBytes,
    request_id: call.requestId,
    gateway_id: gateway.id,
    attempts: record.attempts,
  };
  if (cost !== undefined) log.cost = cost;
  if (directives.metadata) log.metadata = JSON.stringify(directives.metadata);
  if (serving.requestContentType) log.request_content_type = serving.requestContentType;
  if (record.responseContentType) log.response_content_type = record.responseContentType;
  log.event_id = directives.eventId ?? call.requestId;
  if (serving.credential === "unified-billing") log.wholesale = true;
  const userAgent = call.request.headers["user-agent"];
  if (userAgent !== undefined) log.user_agent = userAgent;
  if (record.error !== undefined) log.error = record.error;
  const bodies = gateway.logs.bodies;
  const request =
    directives.collectLogPayload === false
      ? undefined
      : bodies.keep(serving.requestBody, serving.requestContentType);
  const response =
    directives.collectLogPayload === false
      ? undefined
      : bodies.keep(record.responseBody, record.responseContentType);
  if (request) log.request_head_complete = request.complete;
  if (response) log.response_head_complete = response.complete;
  if (gateway.logs.add(log) && (request || response)) {
    bodies.set(
      log.id,
      request && response ? { request, response } : request ? { request } : { response: response! },
    );
  }
}

type Mutable<Type> = { -readonly [Key in keyof Type]: Type[Key] };
