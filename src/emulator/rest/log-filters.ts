/**
 * @module
 * Log list filters. The `cloudflare` SDK sends `filters` as repeated dotted fields
 * (`filters.key=provider&filters.operator=eq&filters.value=openai&filters.key=...`); bracketed
 * (`filters[0][key]=...`) and JSON (`filters=[{...}]`) forms are accepted too, as are the
 * deprecated single-field parameters (`provider`, `model`, `success`, `cached`, `start_date`,
 * `end_date`) and `search` over metadata.
 */
import { RestRequestError, restErrorCodes } from "../errors.ts";
import type { GatewayLogRecord } from "../features/log-store.ts";

export interface LogFilter {
  readonly key: string;
  readonly operator: "eq" | "neq" | "contains" | "lt" | "gt";
  readonly value: readonly string[];
}

const operators = new Set(["eq", "neq", "contains", "lt", "gt"]);

const fieldReaders: Readonly<Record<string, (record: GatewayLogRecord) => unknown[]>> = {
  id: (record) => [record.id],
  created_at: (record) => [record.created_at],
  request_content_type: (record) => [record.request_content_type],
  response_content_type: (record) => [record.response_content_type],
  request_type: (record) => [record.request_type],
  success: (record) => [record.success],
  cached: (record) => [record.cached],
  provider: (record) => [record.provider],
  model: (record) => [record.model],
  cost: (record) => [record.cost],
  tokens: (record) => [(record.tokens_in ?? 0) + (record.tokens_out ?? 0)],
  tokens_in: (record) => [record.tokens_in],
  tokens_out: (record) => [record.tokens_out],
  duration: (record) => [record.duration],
  event_id: (record) => [record.event_id],
  status_code: (record) => [record.status_code],
  step: (record) => [record.step],
  user_agent: (record) => [record.user_agent],
  wholesale: (record) => [record.wholesale ?? false],
  "metadata.key": (record) => Object.keys(metadataOf(record)),
  "metadata.value": (record) => Object.values(metadataOf(record)),
};

function metadataOf(record: GatewayLogRecord): Record<string, unknown> {
  if (record.metadata === undefined) return {};
  try {
    return JSON.parse(record.metadata) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function invalid(message: string): RestRequestError {
  return new RestRequestError(400, restErrorCodes.invalidRequest, message);
}

/** Reads every filter in a query. @throws RestRequestError 400 for an unknown key or operator. */
export function readLogFilters(query: URLSearchParams): LogFilter[] {
  const raw: { key?: string; operator?: string; value: string[] }[] = [];
  const json = query.get("filters");
  if (json !== null) {
    try {
      const parsed = JSON.parse(json) as unknown;
      for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
        const filter = item as { key?: unknown; operator?: unknown; value?: unknown };
        raw.push({
          key: String(filter.key),
          operator: String(filter.operator),
          value: (Array.isArray(filter.value) ? filter.value : [filter.value]).map(String),
        });
      }
    } catch {
      throw invalid('filters must be [{"key":..., "operator":..., "value":[...]}]');
    }
  }
  const bracketed = new Map<string, { key?: string; operator?: string; value: string[] }>();
  for (const [name, value] of query) {
    const dotted = /^filters\.(key|operator|value)$/.exec(name);
    if (dotted) {
      if (dotted[1] === "key") raw.push({ key: value, value: [] });
      else {
        const last = raw.at(-1);
        if (last === undefined) throw invalid(`${name} must follow filters.key`);
        if (dotted[1] === "operator") last.operator = value;
        else last.value.push(value);
      }
      continue;
    }
    const bracket = /^filters\[(\d+)\](?:\[|\.)(key|operator|value)\]?(?:\[\d*\])?$/.exec(name);
    if (bracket) {
      const entry = bracketed.get(bracket[1]!) ?? { value: [] };
      if (bracket[2] === "value") entry.value.push(value);
      else entry[bracket[2] as "key" | "operator"] = value;
      bracketed.set(bracket[1]!, entry);
    }
  }
  raw.push(...bracketed.values());
  for (const name of ["provider", "model", "success", "cached"]) {
    const value = query.get(name);
    if (value !== null) raw.push({ key: name, operator: "eq", value: [value] });
  }
  const start = query.get("start_date");
  if (start !== null) raw.push({ key: "created_at", operator: "gt", value: [start] });
  const end = query.get("end_date");
  if (end !== null) raw.push({ key: "created_at", operator: "lt", value: [end] });
  return raw.map((filter) => {
    if (filter.key === undefined || !(filter.key in fieldReaders)) {
      throw invalid(
        `Unknown log filter key "${filter.key}"; use one of ${Object.keys(fieldReaders).join(", ")}`,
      );
    }
    const operator = filter.operator ?? "eq";
    if (!operators.has(operator)) {
      throw invalid(`Unknown log filter operator "${operator}"; use eq, neq, contains, lt or gt`);
    }
    return { key: filter.key, operator: operator as LogFilter["operator"], value: filter.value };
  });
}

/** Whether a record passes a filter. */
export function matchesFilter(record: GatewayLogRecord, filter: LogFilter): boolean {
  const actual = fieldReaders[filter.key]!(record).filter((value) => value !== undefined);
  const text = actual.map((value) => String(value));
  switch (filter.operator) {
    case "eq":
      return text.some((value) => filter.value.includes(value));
    case "neq":
      return !text.some((value) => filter.value.includes(value));
    case "contains":
      return text.some((value) =>
        filter.value.some((needle) => value.toLowerCase().includes(needle.toLowerCase())),
      );
    case "lt":
    case "gt":
      return actual.some((value) =>
        filter.value.some((bound) => compare(value, bound, filter.operator === "lt")),
      );
  }
}

function compare(value: unknown, bound: string, lessThan: boolean): boolean {
  if (typeof value === "number") {
    const number = Number(bound);
    if (!Number.isFinite(number)) return false;
    return lessThan ? value < number : value > number;
  }
  const left = Date.parse(String(value));
  const right = Date.parse(bound);
  if (Number.isNaN(left) || Number.isNaN(right)) return false;
  return lessThan ? left < right : left > right;
}

/** Free-text search over a record's metadata, model and provider. */
export function matchesSearch(record: GatewayLogRecord, search: string): boolean {
  const needle = search.toLowerCase();
  return [record.metadata ?? "", record.model, record.provider, record.id].some((field) =>
    field.toLowerCase().includes(needle),
  );
}
