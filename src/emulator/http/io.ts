/**
 * @module
 * Reading requests and writing responses on `node:http`: bounded body reads, JSON answers, and
 * the two error body shapes (gateway and REST).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type GatewayErrorResponse,
  GatewayRequestError,
  gatewayErrorCodes,
  type RestRequestError,
} from "../errors.ts";

/** Largest request body the emulator accepts (Cloudflare caches requests up to 25 MB). */
export const maxRequestBytes = 25 * 1024 * 1024;

/**
 * Reads a whole request body (with `data` events: an async iterator costs more per request).
 * @throws GatewayRequestError 413 when the body is larger than `limit` (the rest of the body is
 * discarded, so the refusal can still be sent), 400 when the connection closes mid-body.
 */
export function readRequestBody(
  request: IncomingMessage,
  limit: number = maxRequestBytes,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (request.readableEnded) {
      resolve(Buffer.alloc(0));
      return;
    }
    const read = new BodyRead(limit, resolve, reject);
    // Inline listeners: no named closures per request (see `BodyRead`).
    request.on("data", (chunk: Buffer) => {
      if (!read.take(chunk)) request.resume();
    });
    request.on("end", () => read.end());
    request.on("error", () => read.closed());
    request.on("close", () => read.closed());
  });
}

/** A body being read; settles once, and ignores what comes after (a discarded rest). */
class BodyRead {
  readonly #limit: number;
  readonly #resolve: (body: Buffer) => void;
  readonly #reject: (error: GatewayRequestError) => void;
  readonly #chunks: Buffer[] = [];
  #size = 0;
  #settled = false;

  constructor(
    limit: number,
    resolve: (body: Buffer) => void,
    reject: (error: GatewayRequestError) => void,
  ) {
    this.#limit = limit;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** Keeps a chunk; false once the body is over the limit (the rest is to be discarded). */
  take(chunk: Buffer): boolean {
    if (this.#settled) return false;
    this.#size += chunk.length;
    if (this.#size > this.#limit) {
      this.#settled = true;
      this.#reject(
        new GatewayRequestError(
          413,
          gatewayErrorCodes.payloadTooLarge,
          `Request body is larger than ${this.#limit} bytes; send a smaller request.`,
        ),
      );
      return false;
    }
    this.#chunks.push(chunk);
    return true;
  }

  end(): void {
    if (this.#settled) return;
    this.#settled = true;
    const chunks = this.#chunks;
    this.#resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size));
  }

  closed(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#reject(
      GatewayRequestError.invalid("The request body could not be read (connection closed)."),
    );
  }
}

/** Parses a body as JSON; `undefined` when it is not JSON. */
export function parseJson(body: Buffer | string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(typeof body === "string" ? body : body.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

/** Writes a JSON response (unless the response already started). */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
  });
  response.end(text);
}

/** Writes an `AiGatewayError` response. */
export function sendGatewayError(
  response: ServerResponse,
  error: GatewayErrorResponse,
  headers: Record<string, string> = {},
): void {
  sendJson(response, error.status, error.body, headers);
}

/** The REST envelope for an error. */
export function restErrorBody(code: number, message: string): Record<string, unknown> {
  return { success: false, errors: [{ code, message }], messages: [], result: null };
}

/** Writes a REST error response. */
export function sendRestError(response: ServerResponse, error: RestRequestError): void {
  sendJson(response, error.status, restErrorBody(error.restCode, error.message));
}

/** Waits until a writable response can take more data (or closes). */
export function waitForDrain(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
  });
}

/** A header value as one string: the first value of a repeated header. */
export function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `rawHeaders` as name/value pairs. */
export function rawHeaderPairs(rawHeaders: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    pairs.push([rawHeaders[index]!, rawHeaders[index + 1]!]);
  }
  return pairs;
}
