/**
 * @module
 * `WorkerError`, the one error the Worker turns into an HTTP response, and `errorResponse`, the
 * single place where any thrown value becomes `{ error: { code, message } }` JSON. Messages never
 * carry a key or a token: they are written by this module's callers from fixed text and
 * validated names only.
 */
import { ConfigError } from "../config/errors.ts";
import { StepwiseError } from "../errors/index.ts";

/** Options for {@link WorkerError}. */
export interface WorkerErrorOptions {
  /** HTTP status sent to the client. */
  readonly status: number;
  /** Stable, machine-readable code, e.g. `invalid_key`. */
  readonly code: string;
  /** What went wrong and how to fix it. Never includes a key or a token. */
  readonly message: string;
  /** Extra response headers, e.g. `Retry-After` or `Allow`. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

/** An error with an HTTP status, raised anywhere in the Worker and answered by `errorResponse`. */
export class WorkerError extends StepwiseError {
  static override readonly kind: string = "stepwise.WorkerError";
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor({ status, code, message, headers, cause }: WorkerErrorOptions) {
    super({ code, message, cause });
    this.name = "WorkerError";
    this.status = status;
    this.headers = headers ?? {};
  }
}

/** The one 401: it never says whether the token was missing, malformed or wrong. */
export function unauthorized(): WorkerError {
  return new WorkerError({
    status: 401,
    code: "unauthorized",
    message: "Missing or invalid token. Send Authorization: Bearer <token>.",
    headers: { "www-authenticate": 'Bearer realm="stepwise"' },
  });
}

/** Builds a JSON response. */
export function jsonResponse(
  body: unknown,
  status = 200,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** Anything that can log a line; `console` by default. */
export interface ErrorLogger {
  error(message: string): void;
}

/**
 * Turns any thrown value into a JSON error response. `WorkerError` keeps its status; a
 * `ConfigError` (a bad `STEPWISE_CONFIG`) is a 503 that names the problem; anything else is a
 * 500 whose body says nothing about the cause, and whose log line carries only the error's name
 * and code, so nothing a caller sent (such as a key) can reach a log.
 */
export function errorResponse(error: unknown, logger: ErrorLogger = console): Response {
  if (WorkerError.isInstance(error)) {
    return jsonResponse(
      { error: { code: error.code, message: error.message } },
      error.status,
      error.headers,
    );
  }
  if (ConfigError.isInstance(error)) {
    logger.error(`stepwise worker: STEPWISE_CONFIG is invalid (${error.issues.length} problem(s))`);
    return jsonResponse({ error: { code: "config_invalid", message: error.message } }, 503);
  }
  const name = error instanceof Error ? error.name : typeof error;
  const code = StepwiseError.isInstance(error) ? error.code : "unexpected";
  logger.error(`stepwise worker: unexpected ${name} (${code})`);
  return jsonResponse(
    { error: { code: "internal_error", message: "The Worker failed unexpectedly; try again." } },
    500,
  );
}
