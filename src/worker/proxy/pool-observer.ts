/**
 * @module
 * What the proxy tells the isolate's `KeyPoolTracker` after a call, and when it reports to the
 * provider's `ProviderMonitor`: each key that was sent gets its outcome (status and the
 * provider's rate-limit headers), the key that served gets its tokens, and in a universal chain
 * the keys of the serving provider that were tried before it are marked as having fallen
 * through. Reports go out off the call's path (`waitUntil`), at most once a second per provider
 * and isolate unless a key just became unavailable.
 */

import { readRateLimits } from "../../wire/rate-limit-headers.ts";
import type { CallPoint } from "../analytics-schema.ts";
import type { UsableKey } from "../edge-reader.ts";
import type { HandlerContext } from "../handler-context.ts";
import type { CallObserver } from "./forward.ts";

/** One step as sent upstream: the app's step, its provider and the key it carries. */
export interface SentKey {
  readonly step: number;
  readonly provider: string;
  readonly key: UsableKey | undefined;
}

/** For a compat or provider-native call: attempt `i` carried `keys[i]`. */
export function keyObserver(
  provider: string,
  keys: readonly (UsableKey | undefined)[],
  context: HandlerContext,
): CallObserver {
  let served: UsableKey | undefined;
  return {
    answered(index, upstream, byGateway) {
      const key = keys[index];
      if (key === undefined) return;
      const now = context.now();
      context.pools.sent(provider, key, now);
      // The gateway's own refusals (its limits, its token) say nothing about the key.
      if (byGateway) return;
      const quota = upstream === undefined ? null : readRateLimits(upstream.headers, now);
      context.pools.settle(
        provider,
        key,
        { kind: "answered", status: upstream?.status ?? 0, quota },
        now,
      );
      served = key;
    },
    completed(point) {
      if (served !== undefined) addTokens(context, provider, served, point);
      syncSoon(context, provider);
    },
  };
}

/** For a universal call sent as `sent` (one entry per step sent upstream). */
export function universalObserver(sent: readonly SentKey[], context: HandlerContext): CallObserver {
  let served: SentKey | undefined;
  return {
    answered(_index, upstream, byGateway) {
      if (upstream === undefined || byGateway) return;
      const now = context.now();
      const named = upstream.headers.get("cf-aig-step");
      // Without it the gateway itself answered (its rate or spend limit): no key is to blame.
      if (named === null || !/^\d+$/.test(named)) return;
      const index = Number(named);
      const copy = sent[index];
      if (copy === undefined) return;
      served = copy;
      for (const tried of sent.slice(0, index + 1)) {
        if (tried.key !== undefined) context.pools.sent(tried.provider, tried.key, now);
      }
      if (copy.key === undefined) return;
      const quota = readRateLimits(upstream.headers, now);
      context.pools.settle(
        copy.provider,
        copy.key,
        { kind: "answered", status: upstream.status, quota },
        now,
      );
      if (!upstream.ok) return;
      // Keys of the same provider tried before the one that served failed on their own account
      // (a 429, a refused key): the provider itself answered.
      for (const tried of sent.slice(0, index)) {
        if (
          tried.provider === copy.provider &&
          tried.key !== undefined &&
          tried.key.name !== copy.key.name
        ) {
          context.pools.settle(tried.provider, tried.key, { kind: "fell-through" }, now);
        }
      }
    },
    completed(point) {
      if (served?.key !== undefined) addTokens(context, served.provider, served.key, point);
      for (const provider of new Set(sent.map((copy) => copy.provider)))
        syncSoon(context, provider);
    },
  };
}

function addTokens(
  context: HandlerContext,
  provider: string,
  key: UsableKey,
  point: CallPoint,
): void {
  const tokens = (point.tokensIn ?? 0) + (point.tokensOut ?? 0);
  context.pools.tokens(provider, key, tokens, context.now());
}

/** Reports to the provider's monitor when due, and adopts its merged view. */
function syncSoon(context: HandlerContext, provider: string): void {
  const reports = context.pools.takeReports(provider, context.now());
  if (reports === null) return;
  context.execution.waitUntil(
    context
      .monitor(provider)
      .report(reports)
      .then(
        (snapshots) => context.pools.adopt(provider, snapshots),
        () => context.pools.restore(provider, reports),
      ),
  );
}
