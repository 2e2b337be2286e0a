/**
 * @module
 * The path of a request target (`request.url`), as the WHATWG URL parser gives it, without
 * parsing a URL for the common plain target: the parser runs only for targets it would change
 * (dot segments, `\\`, `//host`, a fragment, characters it percent-encodes).
 */
import { GatewayRequestError } from "../errors.ts";

/** Targets the URL parser would change, or that do not start with one `/`. */
const needsParsing = /^(?!\/)|^\/\/|[\\#"<>`{}]|[^\x21-\x7e]|\/\.|%2e/i;

/**
 * The target's path, percent-escapes kept (the router decodes segments).
 * @throws GatewayRequestError 400 when the target is not a valid URL path.
 */
export function requestPath(target: string): string {
  if (needsParsing.test(target)) return requestUrl(target).pathname;
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}

/**
 * The target as a URL on a placeholder origin.
 * @throws GatewayRequestError 400 when the target is not a valid URL path.
 */
export function requestUrl(target: string): URL {
  try {
    return new URL(target, "http://emulator.invalid");
  } catch {
    throw GatewayRequestError.invalid("The request URL is not valid.");
  }
}
