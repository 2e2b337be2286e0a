/**
 * @module
 * Per-key health and usage as `GET /keys` shows them, from the provider's `ProviderMonitor`
 * (what every isolate reported) and the config's caps: whether the key may be sent now (and
 * until when not, and why), the provider's latest remaining quota, and its counters.
 */
import type { KeyCaps } from "../../config/schema.ts";
import type { PoolKeyView, ProviderKeysView } from "../ledger/key-versions-view.ts";
import { availability } from "./key-condition.ts";
import type { KeySnapshot } from "./key-usage.ts";

/** One key's health. */
export interface KeyHealthView {
  /** `available`: sent to the provider; `cooling-down` / `at-cap`: skipped until `until`. */
  readonly state: "available" | "cooling-down" | "at-cap";
  readonly reason: string | null;
  readonly until: string | null;
  readonly lastStatus: number | null;
  readonly observedAt: string | null;
  /** The provider's rate-limit headers on the latest answer. */
  readonly quota: {
    readonly requestsRemaining: number | null;
    readonly requestsResetAt: string | null;
    readonly tokensRemaining: number | null;
    readonly tokensResetAt: string | null;
  } | null;
}

/** One key's usage since the monitor first heard of it. */
export interface KeyUsageView {
  readonly since: string;
  readonly calls: number;
  readonly ok: number;
  readonly rateLimited: number;
  readonly refused: number;
  readonly failed: number;
  readonly fellThrough: number;
  readonly tokens: number;
  readonly lastUsedAt: string | null;
  /** This minute, across every location (what the `rpm`/`tpm` caps count). */
  readonly thisMinute: { readonly requests: number; readonly tokens: number };
}

/** A pool key with its health and usage. */
export type PoolKeyWithHealth = PoolKeyView & {
  readonly health: KeyHealthView;
  readonly usage: KeyUsageView | null;
};

/** A provider's view with health and usage on each key of its pool. */
export function withHealth(
  view: ProviderKeysView,
  snapshots: readonly KeySnapshot[],
  caps: KeyCaps | undefined,
  now: number,
): ProviderKeysView & { readonly pool: readonly PoolKeyWithHealth[] } {
  return {
    ...view,
    pool: view.pool.map((key) => {
      const version = key.current?.version;
      const snapshot = snapshots.find((entry) => entry.name === key.name);
      const known = snapshot !== undefined && snapshot.version === version ? snapshot : undefined;
      return { ...key, health: healthOf(known, caps, now), usage: usageOf(known, now) };
    }),
  };
}

function healthOf(
  snapshot: KeySnapshot | undefined,
  caps: KeyCaps | undefined,
  now: number,
): KeyHealthView {
  const condition = snapshot?.condition;
  const verdict = availability(condition, snapshot?.window, caps, now);
  const quota = condition?.quota ?? null;
  return {
    state: verdict.available ? "available" : verdict.state,
    reason: verdict.available ? null : verdict.reason,
    until: verdict.available ? null : iso(verdict.until),
    lastStatus: condition?.lastStatus ?? null,
    observedAt: condition === undefined ? null : iso(condition.observedAt),
    quota:
      quota === null
        ? null
        : {
            requestsRemaining: quota.requestsRemaining,
            requestsResetAt: quota.requestsResetAt === null ? null : iso(quota.requestsResetAt),
            tokensRemaining: quota.tokensRemaining,
            tokensResetAt: quota.tokensResetAt === null ? null : iso(quota.tokensResetAt),
          },
  };
}

function usageOf(snapshot: KeySnapshot | undefined, now: number): KeyUsageView | null {
  if (snapshot === undefined) return null;
  const { stats, window } = snapshot;
  const current = window !== undefined && now - window.minute < 60_000 ? window : undefined;
  return {
    since: iso(snapshot.since),
    calls: stats.calls,
    ok: stats.ok,
    rateLimited: stats.rateLimited,
    refused: stats.refused,
    failed: stats.failed,
    fellThrough: stats.fellThrough,
    tokens: stats.tokens,
    lastUsedAt: stats.lastUsedAt === null ? null : iso(stats.lastUsedAt),
    thisMinute: { requests: current?.requests ?? 0, tokens: current?.tokens ?? 0 },
  };
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
