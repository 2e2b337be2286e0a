/**
 * @module
 * `/accounts/{account}/ai-gateway/gateways/{id}/logs`: list (filters, search, order, pages; a page
 * past the end is empty), get one, and delete (all, or those the filters select).
 */
import { RestRequestError, restErrorCodes } from "../errors.ts";
import type { GatewayLogRecord } from "../features/log-store.ts";
import { notFound, paginate, readPage, success } from "./envelope.ts";
import { gatewayOf } from "./gateways.ts";
import { matchesFilter, matchesSearch, readLogFilters } from "./log-filters.ts";
import type { RestContext, RestHandler } from "./rest-context.ts";

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

export const getLog: RestHandler = (context) => {
  const gateway = gatewayOf(context);
  const id = context.params.log ?? "";
  const record = gateway.logs.get(id);
  if (record === undefined) throw notFound("Log", id);
  return success(record);
};

export const deleteLogs: RestHandler = (context) => {
  const gateway = gatewayOf(context);
  const selected = new Set(selectLogs(context).map((record) => record.id));
  gateway.logs.remove((record) => selected.has(record.id));
  return { success: true };
};
