/**
 * @module
 * The gateway's response cache, scoped to the app (issue #23). The gateway keys its cache by
 * request (or by the caller's `cf-aig-cache-key`), not by who asks: two apps behind one Worker
 * sending the same body, or the same key, would read and overwrite each other's answers, and
 * `cf-aig-cache-status` would tell one app what another asked. So wherever the gateway caches the
 * call, the Worker sends a `cf-aig-cache-key` of its own, made from the app's id and either the
 * app's key or (when it sent none) the call's method, path and body. Nowhere else: a key turns
 * caching on where it was off (caching.mdx: "If caching is not enabled for the gateway,
 * responses will be cached for 5 minutes by default").
 *
 * Where the gateway caches: the call's `cf-aig-cache-ttl` (or `cf-cache-ttl`, or a universal
 * step's) when it sets one, else the gateway's `cache.ttl` from the config, else 5 minutes when the
 * app sent a key; never under `cf-aig-skip-cache: true`. Everywhere else the call goes with
 * `cf-aig-skip-cache: true`: the Worker's view knows only the config's TTLs, and a cache turned on
 * in the dashboard would otherwise answer every app from one unscoped cache. A body the Worker
 * cannot read whole (a provider-native stream of unknown length) cannot be keyed: such a call
 * skips the cache too, uncached rather than shared. A gateway with `cache.shareBetweenApps: true`
 * keeps one cache for every app on purpose: the app's own key, or none, and its directives go as
 * sent.
 */
import type { WorkerViewGateway } from "../../config/worker-view.ts";
import { sha256Hex } from "../crypto.ts";

/** TTL the gateway gives a call that sends only a cache key, in seconds (caching.mdx). */
export const keyOnlyTtlSeconds = 300;

/** How the call meets the gateway's cache. */
export type CachePlan =
  /** Not cached by the config: sent with `cf-aig-skip-cache: true`, nothing to scope. */
  | "uncached"
  /** The gateway shares its cache between apps (`cache.shareBetweenApps`). */
  | "shared"
  /** Cached: the Worker sends the app's scoped key. */
  | "scoped";

/** Whether and how the gateway caches a call with these headers (the app's cache key taken out). */
export function cachePlan(
  headers: Headers,
  appKey: string | undefined,
  gateway: WorkerViewGateway,
  stepHeaders: readonly Readonly<Record<string, string>>[] = [],
): CachePlan {
  if (gateway.cache?.shareBetweenApps === true) return "shared";
  const gatewayTtl = gateway.cache?.ttl ?? 0;
  const caches = (get: (name: string) => string | undefined): boolean => {
    if (flag(get("cf-aig-skip-cache") ?? get("cf-skip-cache"))) return false;
    const asked = get("cf-aig-cache-ttl") ?? get("cf-cache-ttl");
    if (asked !== undefined) return ttlOf(asked) !== 0;
    return gatewayTtl > 0 || appKey !== undefined;
  };
  const request = (name: string) => headers.get(name) ?? undefined;
  if (caches(request)) return "scoped";
  // A step's own directives win over the request's at the gateway.
  const stepCaches = stepHeaders.some((step) => {
    const lower = new Map(Object.entries(step).map(([name, value]) => [name.toLowerCase(), value]));
    const get = (name: string) => lower.get(name) ?? request(name);
    return [...lower.keys()].some((name) => name.startsWith("cf-")) && caches(get);
  });
  return stepCaches ? "scoped" : "uncached";
}

/** What the Worker's key is made from: the app, and its key or the call itself. */
export interface ScopedKeyInput {
  readonly appId: string;
  readonly appKey: string | undefined;
  readonly method: string;
  /** The path and query the call goes to. */
  readonly path: string;
  /** The app's body as sent (never with a provider key in it); null for none. */
  readonly body: string | Uint8Array | null;
}

/**
 * The key the Worker sends for an app's cached call: `stepwise:{app}:key:{sha256}` from the app's
 * own key, else `stepwise:{app}:call:{sha256}` from method, path and body.
 */
export async function scopedCacheKey(input: ScopedKeyInput): Promise<string> {
  if (input.appKey !== undefined) {
    return `stepwise:${input.appId}:key:${await sha256Hex(input.appKey)}`;
  }
  const body =
    input.body === null
      ? ""
      : typeof input.body === "string"
        ? input.body
        : // Latin-1 keeps every byte distinct, so two bodies never map to one text.
          latin1(input.body);
  return `stepwise:${input.appId}:call:${await sha256Hex(`${input.method.toUpperCase()}\0${input.path}\0${body}`)}`;
}

/**
 * Sets the call's cache headers for `plan`: `cf-aig-skip-cache: true` when uncached, the scoped
 * key when cached (a body of `undefined` is one the Worker could not read: the call then skips the
 * cache), the app's own key when shared.
 */
export async function applyCachePlan(
  headers: Headers,
  plan: CachePlan,
  input: Omit<ScopedKeyInput, "body"> & { readonly body: string | Uint8Array | null | undefined },
): Promise<void> {
  headers.delete("cf-aig-cache-key");
  if (plan === "shared") {
    if (input.appKey !== undefined) headers.set("cf-aig-cache-key", input.appKey);
    return;
  }
  if (plan === "uncached" || (input.body === undefined && input.appKey === undefined)) {
    skipCache(headers);
    return;
  }
  headers.set("cf-aig-cache-key", await scopedCacheKey({ ...input, body: input.body ?? null }));
}

/**
 * `cf-aig-skip-cache: true` in place of any skip directive the app sent: "Skip cache refers to
 * bypassing the cache and fetching the request directly from the original provider, without
 * utilizing any cached copy" (caching.mdx).
 */
function skipCache(headers: Headers): void {
  headers.delete("cf-skip-cache");
  headers.set("cf-aig-skip-cache", "true");
}

/**
 * A universal step's headers for an uncached call: a skip directive of the step's own (which wins
 * over the request's at the gateway) becomes `cf-aig-skip-cache: true`, so no step reads a cache
 * the Worker could not scope.
 */
export function uncachedStepHeaders(
  plan: CachePlan,
  step: Readonly<Record<string, string>>,
): Record<string, string> {
  if (plan !== "uncached") return { ...step };
  const headers: Record<string, string> = {};
  let skipped = false;
  for (const [name, value] of Object.entries(step)) {
    const lower = name.toLowerCase();
    if (lower === "cf-aig-skip-cache" || lower === "cf-skip-cache") skipped = true;
    else headers[name] = value;
  }
  if (skipped) headers["cf-aig-skip-cache"] = "true";
  return headers;
}

function flag(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === "true";
}

/** A TTL header's seconds; one that does not parse counts as caching (the gateway refuses it). */
function ttlOf(value: string): number {
  return /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
}

function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let index = 0; index < bytes.length; index += 8192) {
    text += String.fromCharCode(...bytes.subarray(index, index + 8192));
  }
  return text;
}
