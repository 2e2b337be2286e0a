/**
 * @module
 * Reads a JSON request body safely: checks the content type, refuses bodies over a byte limit
 * (by `Content-Length` first, then while reading, for chunked bodies) and reports bad JSON as a
 * 400. Error messages never quote the body, since it may hold a key.
 */
import { WorkerError } from "./errors.ts";

/** Options for {@link readJsonBody}. */
export interface ReadJsonOptions {
  /** Largest body accepted, in bytes. */
  readonly maxBytes: number;
  /** Whether an empty body reads as `{}` (for endpoints whose fields are all optional). */
  readonly allowEmpty?: boolean;
}

/**
 * The parsed JSON body.
 * @throws {WorkerError} 415 for a non-JSON content type, 413 for a body over `maxBytes`, 400 for
 * an empty body or bad JSON.
 */
export async function readJsonBody(request: Request, options: ReadJsonOptions): Promise<unknown> {
  const text = await readTextBody(request, options.maxBytes);
  if (text.trim() === "") {
    if (options.allowEmpty === true) return {};
    throw new WorkerError({
      status: 400,
      code: "invalid_json",
      message: "The request body is empty; send a JSON object.",
    });
  }
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type.trim())) {
    throw new WorkerError({
      status: 415,
      code: "unsupported_media_type",
      message: "Send the body as JSON with Content-Type: application/json.",
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new WorkerError({
      status: 400,
      code: "invalid_json",
      message: "The request body is not valid JSON.",
    });
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
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new WorkerError({
      status: 400,
      code: "invalid_json",
      message: "The request body is not UTF-8 text.",
    });
  }
}

function tooLarge(maxBytes: number): WorkerError {
  return new WorkerError({
    status: 413,
    code: "body_too_large",
    message: `The request body is larger than ${maxBytes} bytes.`,
  });
}
