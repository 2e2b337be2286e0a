/**
 * @module
 * A tiny path router: patterns are `/`-separated segments where `:name` captures one segment
 * and a trailing `*name` captures the rest (possibly empty). Segments are percent-decoded; a
 * segment that does not decode makes the path unmatched rather than throwing.
 */

/** Captured path parameters. */
export type RouteParams = Readonly<Record<string, string>>;

export interface RouteMatch<Handler> {
  readonly handler: Handler;
  readonly params: RouteParams;
}

interface Route<Handler> {
  readonly method: string;
  readonly segments: readonly string[];
  readonly handler: Handler;
}

/** The result of looking a request up: a match, a path that exists for other methods, or none. */
export type LookupResult<Handler> =
  | { readonly kind: "match"; readonly match: RouteMatch<Handler> }
  | { readonly kind: "method-not-allowed"; readonly allowed: readonly string[] }
  | { readonly kind: "not-found" };

export class Router<Handler> {
  readonly #routes: Route<Handler>[] = [];

  /** Adds a route; `method` `*` matches any method. */
  add(method: string, pattern: string, handler: Handler): this {
    this.#routes.push({ method: method.toUpperCase(), segments: split(pattern), handler });
    return this;
  }

  /** Finds the first route for a method and path (the path without its query string). */
  lookup(method: string, path: string): LookupResult<Handler> {
    // Each segment is decoded once; undefined marks one that does not decode.
    const segments = split(path).map(decode);
    const upperMethod = method.toUpperCase();
    const allowed: string[] = [];
    for (const route of this.#routes) {
      const params = matchSegments(route.segments, segments);
      if (params === undefined) continue;
      if (route.method === "*" || route.method === upperMethod) {
        return { kind: "match", match: { handler: route.handler, params } };
      }
      allowed.push(route.method);
    }
    return allowed.length > 0 ? { kind: "method-not-allowed", allowed } : { kind: "not-found" };
  }
}

function split(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "");
}

function matchSegments(
  pattern: readonly string[],
  segments: readonly (string | undefined)[],
): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let index = 0; index < pattern.length; index++) {
    const part = pattern[index]!;
    if (part.startsWith("*")) {
      const rest = segments.slice(index);
      if (rest.some((segment) => segment === undefined)) return undefined;
      params[part.slice(1)] = rest.join("/");
      return params;
    }
    if (index >= segments.length) return undefined;
    const decoded = segments[index];
    if (decoded === undefined) return undefined;
    if (part.startsWith(":")) params[part.slice(1)] = decoded;
    else if (part !== decoded) return undefined;
  }
  return pattern.length === segments.length ? params : undefined;
}

function decode(segment: string): string | undefined {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
