/**
 * @module
 * The Cloudflare API envelope (`{success, errors, messages, result, result_info}`), page
 * arithmetic and body/query checks shared by the REST handlers.
 */
import type { IncomingMessage } from "node:http";
import * as z from "zod";
import { RestRequestError, restErrorCodes } from "../errors.ts";
import { parseJson, readRequestBody } from "../http/io.ts";

/** A page request: 1-based page and page size. */
export interface PageRequest {
  readonly page: number;
  readonly perPage: number;
}

/** A success envelope. */
export function success(result: unknown, resultInfo?: Record<string, unknown>) {
  return {
    success: true,
    errors: [],
    messages: [],
    result,
    ...(resultInfo ? { result_info: resultInfo } : {}),
  };
}

/** Reads `page` and `per_page` (defaults 1 and `defaultPerPage`, at most `maxPerPage`). */
export function readPage(
  query: URLSearchParams,
  defaultPerPage = 20,
  maxPerPage = 100,
): PageRequest {
  const read = (name: string, fallback: number, max: number) => {
    const value = query.get(name);
    if (value === null || value === "") return fallback;
    const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(number) || number < 1 || number > max) {
      throw new RestRequestError(
        400,
        restErrorCodes.invalidRequest,
        `${name} must be a whole number from 1 to ${max}`,
      );
    }
    return number;
  };
  return {
    page: read("page", 1, 1_000_000),
    perPage: read("per_page", defaultPerPage, maxPerPage),
  };
}

/** One page of items with its `result_info`; a page past the end is empty. */
export function paginate<Item>(items: readonly Item[], page: PageRequest) {
  const start = (page.page - 1) * page.perPage;
  const slice = items.slice(start, start + page.perPage);
  return {
    items: slice,
    info: {
      page: page.page,
      per_page: page.perPage,
      count: slice.length,
      total_count: items.length,
      total_pages: Math.ceil(items.length / page.perPage),
    },
  };
}

/**
 * Reads and validates a JSON body.
 * @throws RestRequestError 400 with every problem.
 */
export async function readBody<Schema extends z.ZodType>(
  request: IncomingMessage,
  schema: Schema,
): Promise<z.infer<Schema>> {
  const json = parseJson(await readRequestBody(request));
  if (!json.ok) {
    throw new RestRequestError(
      400,
      restErrorCodes.invalidRequest,
      "The request body must be JSON.",
    );
  }
  const parsed = schema.safeParse(json.value);
  if (!parsed.success) {
    throw new RestRequestError(
      400,
      restErrorCodes.invalidRequest,
      `Invalid request body: ${z.prettifyError(parsed.error).replaceAll("\n", " ")}`,
    );
  }
  return parsed.data;
}

/** A 404 for an unknown object id. */
export function notFound(what: string, id: string): RestRequestError {
  return new RestRequestError(404, restErrorCodes.invalidIdentifier, `${what} "${id}" not found`);
}
