/**
 * @module
 * Request bodies, safely: hono's `bodyLimit` refuses a body over the limit (by
 * `Content-Length`, or while reading a chunked one) with a 413; a body that ends before its
 * declared length (the client went away) is a 400, not a 500; JSON nested deeper than
 * {@link maxJsonDepth} is refused before it is parsed. Error messages never quote the body, since
 * it may hold a key.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { WorkerError } from "../errors.ts";

/** Deepest JSON nesting accepted (objects and arrays), well past any real request. */
export const maxJsonDepth = 64;

/**
 * Middleware: refuses bodies over `maxBytes` (413) and bodies cut short while hono's limit reads
 * them (400). Errors of the handlers after it pass through untouched.
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge(maxBytes);
    },
  });
  return async (c, next) => {
    let reachedHandler = false;
    try {
      await limit(c, async () => {
        reachedHandler = true;
        await next();
      });
    } catch (error) {
      if (reachedHandler || WorkerError.isInstance(error)) throw error;
      throw incomplete();
    }
  };
}

/** Options for {@link readJsonBody}. */
export interface ReadJsonOptions {
  /** Largest body accepted, in bytes. */
  readonly maxBytes: number;
  /** Whether an empty body reads as `{}` (for endpoints whose fields are all optional). */
  readonly allowEmpty?: boolean;
}

/**
 * The body's text and its parsed JSON.
 * @throws {WorkerError} 413 over `maxBytes`, 400 `body_incomplete` when cut short, 400
 * `invalid_json` for an empty body (unless allowed), bad UTF-8 or bad JSON, 415 for a non-JSON
 * content type, 400 `json_too_deep` past {@link maxJsonDepth}.
 */
export async function readJsonBody(
  request: Request,
  options: ReadJsonOptions,
): Promise<{ text: string; value: unknown }> {
  const text = await readTextBody(request, options.maxBytes);
  if (text.trim() === "") {
    if (options.allowEmpty === true) return { text, value: {} };
    throw invalidJson("The request body is empty; send a JSON object.");
  }
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type.trim())) {
    throw new WorkerError({
      status: 415,
      code: "unsupported_media_type",
      message: "Send the body as JSON with Content-Type: application/json.",
    });
  }
  if (jsonDepth(text) > maxJsonDepth) {
    throw new WorkerError({
      status: 400,
      code: "json_too_deep",
      message: `The request body nests JSON more than ${maxJsonDepth} levels deep.`,
    });
  }
  try {
    return { text, value: JSON.parse(text) };
  } catch {
    throw invalidJson("The request body is not valid JSON.");
  }
}

/** The body as text, refusing more than `maxBytes`. */
export async function readTextBody(request: Request, maxBytes: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch {
      throw incomplete();
    }
    if (next.done) break;
    total += next.value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(next.value);
  }
  const bytes = chunks.length === 1 ? chunks[0]! : joinChunks(chunks, total);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalidJson("The request body is not UTF-8 text.");
  }
}

/** The deepest nesting of arrays and objects in JSON text (strings are skipped). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92 /* \ */) index++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 91 /* [ */ || code === 123 /* { */) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (code === 93 /* ] */ || code === 125 /* } */) depth--;
  }
  return deepest;
}

function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function tooLarge(maxBytes: number): WorkerError {
  return new WorkerError({
    status: 413,
    code: "body_too_large",
    message: `The request body is larger than ${maxBytes} bytes.`,
  });
}

function incomplete(): WorkerError {
  return new WorkerError({
    status: 400,
    code: "body_incomplete",
    message: "The request body ended before it was complete; send the whole body.",
  });
}

function invalidJson(message: string): WorkerError {
  return new WorkerError({ status: 400, code: "invalid_json", message });
}
