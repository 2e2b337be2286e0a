/**
 * @module
 * Per-key usage counters and the report an isolate sends to its provider's `ProviderMonitor`
 * (and what it gets back): the shapes shared by the proxy's tracker and the monitor.
 */
import type { KeyCondition, KeyOutcome, MinuteWindow } from "./key-condition.ts";

/** What one key did. */
export interface KeyStats {
  readonly calls: number;
  readonly ok: number;
  readonly rateLimited: number;
  readonly refused: number;
  /** Other failures (5xx, bad requests, unreachable). */
  readonly failed: number;
  /** Universal steps with this key that failed before another key of the provider served. */
  readonly fellThrough: number;
  readonly tokens: number;
  readonly lastUsedAt: number | null;
}

export const noStats: KeyStats = {
  calls: 0,
  ok: 0,
  rateLimited: 0,
  refused: 0,
  failed: 0,
  fellThrough: 0,
  tokens: 0,
  lastUsedAt: null,
};

/** The counters after one outcome. */
export function countOutcome(stats: KeyStats, outcome: KeyOutcome, now: number): KeyStats {
  if (outcome.kind === "fell-through") {
    return {
      ...stats,
      calls: stats.calls + 1,
      fellThrough: stats.fellThrough + 1,
      lastUsedAt: now,
    };
  }
  const { status } = outcome;
  return {
    ...stats,
    calls: stats.calls + 1,
    ok: stats.ok + (status >= 200 && status < 300 ? 1 : 0),
    rateLimited: stats.rateLimited + (status === 429 ? 1 : 0),
    refused: stats.refused + (status === 401 || status === 403 ? 1 : 0),
    failed:
      stats.failed +
      (status >= 300 && ![401, 403, 429].includes(status) ? 1 : 0) +
      (status === 0 ? 1 : 0),
    lastUsedAt: now,
  };
}

/** Adds two sets of counters. */
export function addStats(a: KeyStats, b: KeyStats): KeyStats {
  return {
    calls: a.calls + b.calls,
    ok: a.ok + b.ok,
    rateLimited: a.rateLimited + b.rateLimited,
    refused: a.refused + b.refused,
    failed: a.failed + b.failed,
    fellThrough: a.fellThrough + b.fellThrough,
    tokens: a.tokens + b.tokens,
    lastUsedAt: Math.max(a.lastUsedAt ?? 0, b.lastUsedAt ?? 0) || null,
  };
}

/** What an isolate tells the monitor about one key since its last report. */
export interface KeyReport {
  readonly name: string;
  readonly version: string;
  /** Counters since the last report. */
  readonly stats: KeyStats;
  /** Requests and tokens of the current minute since the last report. */
  readonly window: MinuteWindow | undefined;
  /** Its latest observation, if any. */
  readonly condition: KeyCondition | undefined;
}

/** What the monitor knows about one key, across every isolate. */
export interface KeySnapshot {
  readonly name: string;
  readonly version: string;
  /** Counters since `since`. */
  readonly stats: KeyStats;
  /** Epoch ms of the first report the counters hold. */
  readonly since: number;
  /** Requests and tokens of the latest minute reported, summed over isolates. */
  readonly window: MinuteWindow | undefined;
  readonly condition: KeyCondition | undefined;
}
