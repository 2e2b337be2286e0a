/**
 * @module
 * `/accounts/{account}/ai-gateway/gateways/{id}/logs`: list (filters, search, order, pages; a page
 * past the end is empty), get one, edit one (feedback, score, metadata), read its stored request
 * and response bodies (`logs.request` / `logs.response`: the body as logged, with its content
 * type, not wrapped in the API envelope), and delete (all, or those the filters select).
 */
import * as z from "zod";
import { RestRequestError, restErrorCodes } from "../errors.ts";
import type { GatewayLogRecord } from "../features/log-store.ts";
import { notFound, paginate, readBody, readPage, success } from "./envelope.ts";
import { gatewayOf } from "./gateways.ts";
import { matchesFilter, matchesSearch, readLogFilters } from "./log-filters.ts";
import { RawRestBody, type RestContext, type RestHandler } from "./rest-context.ts";

const orderFields = ["created_at", "provider", "model", "model_type", "success", "cached"] as const;

function selectLogs(context: RestContext): GatewayLogRecord[] {
  const gateway = gatewayOf(context);
  const filters = readLogFilters(context.query);
  const search = context.query.get("search");
  return gateway.logs
    .list()
    .filter((record) => filters.every((filter) => matchesFilter(record, filter)))
    .filter((record) => !search || matchesSearch(record, search));
}

export const listLogs: RestHandler = (context) => {
  const orderBy = context.query.get("order_by") ?? "created_at";
  if (!(orderFields as readonly string[]).includes(orderBy)) {
    throw new RestRequestError(
      400,
      restErrorCodes.invalidRequest,
      `order_by must be one of ${orderFields.join(", ")}`,
    );
  }
  const direction =
    context.query.get("order_by_direction") ?? context.query.get("direction") ?? "desc";
  if (direction !== "asc" && direction !== "desc") {
    throw new RestRequestError(
      400,
      restErrorCodes.invalidRequest,
      "order_by_direction must be asc or desc",
    );
  }
  const page = readPage(context.query, 20, 50);
  const records = selectLogs(context).map((record, index) => ({ record, index }));
  records.sort((left, right) => {
    const a = (left.record as unknown as Record<string, unknown>)[orderBy];
    const b = (right.record as unknown as Record<string, unknown>)[orderBy];
    const order = a === b ? left.index - right.index : String(a ?? "") < String(b ?? "") ? -1 : 1;
    return direction === "asc" ? order : -order;
  });
  const { items, info } = paginate(
    records.map(({ record }) => record),
    page,
  );
  return success(items, info);
};

function logOf(context: RestContext): GatewayLogRecord {
  const id = context.params.log ?? "";
  const record = gatewayOf(context).logs.get(id);
  if (record === undefined) throw notFound("Log", id);
  return record;
}

export const getLog: RestHandler = (context) => success(logOf(context));

const editSchema = z.object({
  feedback: z
    .union([z.literal(-1), z.literal(0), z.literal(1)], { error: "feedback is -1, 0 or 1" })
    .nullable()
    .optional(),
  score: z.number().min(0).max(100).nullable().optional(),
  metadata: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .refine((metadata) => Object.keys(metadata).length <= 5, {
      error: "metadata holds at most 5 entries",
    })
    .nullable()
    .optional(),
});

/** `logs.edit`: PATCH feedback, score and metadata; the SDK's answer is `unknown`. */
export const editLog: RestHandler = async (context) => {
  const record = logOf(context);
  const body = await readBody(context.request, editSchema);
  const updated = gatewayOf(context).logs.update(record.id, {
    ...(body.feedback === undefined ? {} : { feedback: body.feedback }),
    ...(body.score === undefined ? {} : { score: body.score }),
    ...(body.metadata === undefined
      ? {}
      : body.metadata === null
        ? { metadata: undefined }
        : { metadata: JSON.stringify(body.metadata) }),
  });
  return success(updated);
};

function storedBody(context: RestContext, which: "request" | "response"): RawRestBody {
  const record = logOf(context);
  const body = gatewayOf(context).logs.bodies.get(record.id)?.[which];
  if (body === undefined) {
    throw new RestRequestError(
      404,
      restErrorCodes.invalidIdentifier,
      `Log ${record.id} has no stored ${which} body (not collected, cf-aig-collect-log-payload: false, or dropped to bound memory)`,
    );
  }
  return new RawRestBody(body.bytes, body.contentType ?? "application/octet-stream");
}

export const getLogRequest: RestHandler = (context) => storedBody(context, "request");
export const getLogResponse: RestHandler = (context) => storedBody(context, "response");

export const deleteLogs: RestHandler = (context) => {
  const gateway = gatewayOf(context);
  const selected = new Set(selectLogs(context).map((record) => record.id));
  gateway.logs.remove((record) => selected.has(record.id));
  return { success: true };
};
