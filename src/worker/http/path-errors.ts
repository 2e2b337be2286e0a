/**
 * @module
 * Answers shared by the routes: the path check (every segment must be valid percent-encoding),
 * 404 and 405.
 */
import { WorkerError } from "../errors.ts";

/**
 * Checks that every segment of a URL path is valid percent-encoding.
 * @throws {WorkerError} 400 `invalid_path` otherwise.
 */
export function checkPath(pathname: string): void {
  for (const segment of pathname.split("/")) {
    if (!segment.includes("%")) continue;
    try {
      decodeURIComponent(segment);
    } catch {
      throw new WorkerError({
        status: 400,
        code: "invalid_path",
        message: "The URL path is not valid percent-encoding.",
      });
    }
  }
}

/** 405 with the methods the path accepts. */
export function methodNotAllowed(allowed: readonly string[]): WorkerError {
  return new WorkerError({
    status: 405,
    code: "method_not_allowed",
    message: `Use ${allowed.join(" or ")} on this path.`,
    headers: { allow: allowed.join(", ") },
  });
}

/** 404 for a path the Worker does not serve. */
export function notFound(): WorkerError {
  return new WorkerError({
    status: 404,
    code: "not_found",
    message: "No such endpoint. See the admin API and proxy routes in README.md.",
  });
}
