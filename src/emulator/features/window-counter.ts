/**
 * @module
 * Weighted counts over a time window, per key, for the gateway rate limit, spend limits and the
 * rate nodes of dynamic routes. Two techniques, as Cloudflare documents them:
 * - `fixed`: windows aligned to the epoch (`floor(now / window)`); the count resets at each
 *   window boundary.
 * - `sliding`: everything in the last `window` ms, `(now - window, now]`.
 *
 * Cloudflare's example, 10 requests per 10 minutes with 10 requests at 12:09 and 10 at 12:11:
 * fixed lets all 20 through (12:00–12:10 and 12:10–12:20 are different windows); sliding refuses
 * the second batch (at 12:11 the last 10 minutes already hold 10 requests).
 *
 * Memory is bounded: at most `maxKeys` keys (oldest dropped) and `maxEntriesPerKey` sliding
 * entries per key (the two oldest merge into the later one, which can only over-count).
 */

export type WindowTechnique = "fixed" | "sliding";

/** A window: its technique and length in ms. */
export interface WindowSpec {
  readonly technique: WindowTechnique;
  readonly windowMs: number;
}

interface FixedState {
  readonly kind: "fixed";
  windowIndex: number;
  total: number;
}

interface SlidingState {
  readonly kind: "sliding";
  readonly entries: { time: number; weight: number }[];
}

export interface WindowCounterOptions {
  readonly maxKeys?: number;
  readonly maxEntriesPerKey?: number;
}

export class WindowCounter {
  readonly #states = new Map<string, FixedState | SlidingState>();
  readonly #maxKeys: number;
  readonly #maxEntriesPerKey: number;

  constructor(options: WindowCounterOptions = {}) {
    this.#maxKeys = options.maxKeys ?? 10_000;
    this.#maxEntriesPerKey = options.maxEntriesPerKey ?? 10_000;
  }

  /** The weight counted in the window that contains `now`. */
  total(key: string, spec: WindowSpec, now: number): number {
    const state = this.#states.get(stateKey(key, spec));
    if (state === undefined) return 0;
    if (state.kind === "fixed") {
      return state.windowIndex === windowIndexOf(spec, now) ? state.total : 0;
    }
    prune(state, spec, now);
    return state.entries.reduce((sum, entry) => sum + entry.weight, 0);
  }

  /** Counts `weight` at `now`. */
  add(key: string, spec: WindowSpec, now: number, weight = 1): void {
    const fullKey = stateKey(key, spec);
    let state = this.#states.get(fullKey);
    if (state === undefined) {
      state =
        spec.technique === "fixed"
          ? { kind: "fixed", windowIndex: windowIndexOf(spec, now), total: 0 }
          : { kind: "sliding", entries: [] };
      this.#remember(fullKey, state);
    }
    if (state.kind === "fixed") {
      const index = windowIndexOf(spec, now);
      if (state.windowIndex !== index) {
        state.windowIndex = index;
        state.total = 0;
      }
      state.total += weight;
      return;
    }
    prune(state, spec, now);
    state.entries.push({ time: now, weight });
    if (state.entries.length > this.#maxEntriesPerKey) {
      const [oldest, next] = state.entries.splice(0, 2) as [
        { time: number; weight: number },
        { time: number; weight: number },
      ];
      state.entries.unshift({ time: next.time, weight: oldest.weight + next.weight });
    }
  }

  /** Counts `weight` if the window stays within `limit`; false (and nothing counted) otherwise. */
  tryConsume(key: string, spec: WindowSpec, now: number, limit: number, weight = 1): boolean {
    if (this.total(key, spec, now) + weight > limit) return false;
    this.add(key, spec, now, weight);
    return true;
  }

  /** Forgets every count. */
  clear(): void {
    this.#states.clear();
  }

  #remember(key: string, state: FixedState | SlidingState): void {
    this.#states.set(key, state);
    if (this.#states.size > this.#maxKeys) {
      const oldest = this.#states.keys().next().value;
      if (oldest !== undefined) this.#states.delete(oldest);
    }
  }
}

function stateKey(key: string, spec: WindowSpec): string {
  return `${spec.technique}:${spec.windowMs}:${key}`;
}

function windowIndexOf(spec: WindowSpec, now: number): number {
  return Math.floor(now / spec.windowMs);
}

function prune(state: SlidingState, spec: WindowSpec, now: number): void {
  const cutoff = now - spec.windowMs;
  let drop = 0;
  while (drop < state.entries.length && state.entries[drop]!.time <= cutoff) drop++;
  if (drop > 0) state.entries.splice(0, drop);
}
