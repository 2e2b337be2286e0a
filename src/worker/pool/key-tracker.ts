/**
 * @module
 * `KeyPoolTracker`: what one isolate knows about each provider's pool of keys, and the proxy's
 * choice of keys per call — no I/O on the call's path. Calls are spread across the keys that may
 * be sent now (round robin); a key cooling down or at a cap (see `key-condition.ts`) is skipped.
 * What the isolate learns is reported to the provider's `ProviderMonitor` off the call's path (at
 * most once a second, at once when a key becomes unavailable), and the merged view it answers
 * (other isolates' cool-downs, this minute's requests and tokens everywhere) is adopted, so every
 * isolate learns within about a second what one of them saw.
 *
 * The `rpm`/`tpm` caps are so counted across isolates about a second late: an approximation,
 * documented as such; the provider's own remaining-quota headers and 429s correct it.
 */
import type { KeyCaps } from "../../config/schema.ts";
import type { UsableKey } from "../edge-reader.ts";
import {
  addWindow,
  availability,
  type KeyCondition,
  type KeyOutcome,
  laterCondition,
  type MinuteWindow,
  minuteOf,
  nextCondition,
} from "./key-condition.ts";
import { addStats, countOutcome, type KeyReport, type KeySnapshot, noStats } from "./key-usage.ts";

/** The keys a call may use, in the order to try them. */
export interface PoolPlan {
  readonly keys: readonly UsableKey[];
  /** Set when the pool has keys but none may be sent now. */
  readonly blocked: { readonly until: number; readonly reason: string } | null;
}

interface TrackedKey {
  version: string;
  condition: KeyCondition | undefined;
  /** The monitor's window (every isolate's reported counts). */
  remoteWindow: MinuteWindow | undefined;
  /** Not yet reported. */
  stats: typeof noStats;
  window: MinuteWindow | undefined;
  reportCondition: KeyCondition | undefined;
}

interface TrackedProvider {
  next: number;
  readonly keys: Map<string, TrackedKey>;
  syncedAt: number;
  urgent: boolean;
}

/** How often an isolate reports to a provider's monitor when nothing urgent happened. */
export const syncEveryMs = 1000;

export class KeyPoolTracker {
  readonly #providers = new Map<string, TrackedProvider>();

  /** Orders the usable keys of a pool for one call. */
  plan(
    provider: string,
    keys: readonly UsableKey[],
    caps: KeyCaps | undefined,
    now: number,
  ): PoolPlan {
    if (keys.length <= 1 && caps === undefined && !this.#providers.has(provider)) {
      return { keys, blocked: null };
    }
    const tracked = this.#provider(provider);
    const usable: UsableKey[] = [];
    // Keys that fell through or were refused may work again: tried when nothing else is left.
    const doubtful: { key: UsableKey; until: number }[] = [];
    let blocked: { until: number; reason: string } | null = null;
    for (const key of keys) {
      const state = this.#key(tracked, key);
      const verdict = availability(
        state.condition,
        addWindow(state.remoteWindow, state.window),
        caps,
        now,
      );
      if (verdict.available) usable.push(key);
      else if (verdict.state === "cooling-down" && verdict.reason !== "rate-limited") {
        doubtful.push({ key, until: verdict.until });
      } else if (blocked === null || verdict.until < blocked.until) {
        blocked = { until: verdict.until, reason: `${key.name}: ${verdict.reason}` };
      }
    }
    if (usable.length === 0) {
      if (doubtful.length === 0) return { keys: [], blocked };
      return {
        keys: doubtful.sort((a, b) => a.until - b.until).map((entry) => entry.key),
        blocked: null,
      };
    }
    const start = tracked.next++ % usable.length;
    return { keys: [...usable.slice(start), ...usable.slice(0, start)], blocked: null };
  }

  /** Counts a request sent with a key (towards its `rpm`). */
  sent(provider: string, key: UsableKey, now: number): void {
    const state = this.#key(this.#provider(provider), key);
    state.window = addWindow(state.window, { minute: minuteOf(now), requests: 1, tokens: 0 });
  }

  /** Records what a call did with a key. */
  settle(provider: string, key: UsableKey, outcome: KeyOutcome, now: number): void {
    const tracked = this.#provider(provider);
    const state = this.#key(tracked, key);
    const before = state.condition;
    state.condition = nextCondition(before, key.version, outcome, now);
    state.reportCondition = state.condition;
    state.stats = countOutcome(state.stats, outcome, now);
    const unavailable = !availability(state.condition, undefined, undefined, now).available;
    if (unavailable) tracked.urgent = true;
  }

  /** Adds the tokens a call used with a key (towards its `tpm`). */
  tokens(provider: string, key: UsableKey, tokens: number, now: number): void {
    if (!(tokens > 0)) return;
    const state = this.#key(this.#provider(provider), key);
    state.window = addWindow(state.window, { minute: minuteOf(now), requests: 0, tokens });
    state.stats = { ...state.stats, tokens: state.stats.tokens + tokens };
  }

  /** The reports to send now (all there are with `force`), taken out of the tracker; null when none is due. */
  takeReports(provider: string, now: number, force = false): KeyReport[] | null {
    const tracked = this.#providers.get(provider);
    if (tracked === undefined) return null;
    if (!force && !tracked.urgent && now - tracked.syncedAt < syncEveryMs) return null;
    const reports: KeyReport[] = [];
    for (const [name, state] of tracked.keys) {
      if (
        state.stats.calls === 0 &&
        state.window === undefined &&
        state.reportCondition === undefined
      ) {
        continue;
      }
      reports.push({
        name,
        version: state.version,
        stats: state.stats,
        window: state.window,
        condition: state.reportCondition,
      });
      // What is reported now counts through the monitor's window from here on.
      state.remoteWindow = addWindow(state.remoteWindow, state.window);
      state.stats = noStats;
      state.window = undefined;
      state.reportCondition = undefined;
    }
    tracked.syncedAt = now;
    tracked.urgent = false;
    return reports.length === 0 ? null : reports;
  }

  /** Puts reports back after the monitor could not be reached. */
  restore(provider: string, reports: readonly KeyReport[]): void {
    const tracked = this.#provider(provider);
    for (const report of reports) {
      const state = tracked.keys.get(report.name);
      if (state === undefined || state.version !== report.version) continue;
      state.stats = addStats(state.stats, report.stats);
      state.reportCondition = laterCondition(state.reportCondition, report.condition);
    }
  }

  /** Adopts the monitor's merged view. */
  adopt(provider: string, snapshots: readonly KeySnapshot[]): void {
    const tracked = this.#provider(provider);
    for (const snapshot of snapshots) {
      const state = tracked.keys.get(snapshot.name);
      if (state === undefined || state.version !== snapshot.version) continue;
      state.remoteWindow = snapshot.window;
      state.condition = laterCondition(state.condition, snapshot.condition);
    }
  }

  #provider(provider: string): TrackedProvider {
    let tracked = this.#providers.get(provider);
    if (tracked === undefined) {
      tracked = { next: 0, keys: new Map(), syncedAt: 0, urgent: false };
      this.#providers.set(provider, tracked);
    }
    return tracked;
  }

  #key(tracked: TrackedProvider, key: UsableKey): TrackedKey {
    let state = tracked.keys.get(key.name);
    if (state === undefined || state.version !== key.version) {
      // A new version (a rotation) starts clean.
      state = {
        version: key.version,
        condition: undefined,
        remoteWindow: undefined,
        stats: noStats,
        window: undefined,
        reportCondition: undefined,
      };
      tracked.keys.set(key.name, state);
    }
    return state;
  }
}
