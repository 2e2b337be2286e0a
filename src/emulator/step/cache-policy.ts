/**
 * @module
 * Whether a step is cached, under which key and for how long. TTL: the `cf-aig-cache-ttl` of the
 * step or request, else the gateway's `cache_ttl`, else 5 minutes when a `cf-aig-cache-key` is
 * sent (Cloudflare's rule); 0 turns caching off. `cf-aig-skip-cache: true` bypasses the cache
 * both ways (no lookup, nothing stored).
 */
import { cacheKey } from "../features/response-cache.ts";
import type { Directives } from "../request/directives.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import type { CachePolicy } from "./step-target.ts";

/** TTL when only a custom cache key asks for caching, in seconds. */
export const customKeyDefaultTtlSeconds = 300;

export function cachePolicyFor(
  call: GatewayCall,
  directives: Directives,
  request: { provider: string; method: string; endpoint: string; body: Buffer | undefined },
): CachePolicy | undefined {
  const gatewayTtl = call.gateway.settings.cache_ttl ?? 0;
  const ttlSeconds =
    directives.cacheTtl ??
    (gatewayTtl > 0
      ? gatewayTtl
      : directives.cacheKey !== undefined
        ? customKeyDefaultTtlSeconds
        : 0);
  if (ttlSeconds <= 0) return undefined;
  return {
    key: cacheKey({
      gatewayId: call.gateway.id,
      provider: request.provider,
      method: request.method,
      path: request.endpoint,
      body: request.body,
      ...(directives.cacheKey === undefined ? {} : { customKey: directives.cacheKey }),
    }),
    ttlSeconds,
    use: directives.skipCache !== true,
  };
}
