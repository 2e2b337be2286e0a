/**
 * @module
 * Path parsing shared by the handlers: decoded path segments and the 405 answer.
 */
import { WorkerError } from "./errors.ts";

/**
 * The decoded, non-empty segments of a URL path.
 * @throws {WorkerError} 400 for a segment that is not valid percent-encoding.
 */
export function pathSegments(pathname: string): string[] {
  return pathname
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        throw new WorkerError({
          status: 400,
          code: "invalid_path",
          message: "The URL path is not valid percent-encoding.",
        });
      }
    });
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
