/**
 * @module
 * `BudgetLedger`: what the client has spent against a policy's budgets, for universal calls (a
 * dynamic route's budgets are counted by the gateway). Each budget key holds the requests or the
 * cost of the last `window` milliseconds — a sliding window, `(now - window, now]`, as the
 * emulator counts a rate element.
 *
 * Its limit, stated plainly: the ledger lives in one process. Processes (or Worker isolates) that
 * share a budget each count their own calls, so N of them may spend up to N times the budget
 * together, and a restart starts from zero. Cloudflare's own count applies to `dynamic/<route>`.
 *
 * Memory is bounded: at most `maxKeys` keys (the oldest dropped) and `maxEntriesPerKey` entries
 * per key (the two oldest merged into the later one, which can only over-count).
 */

export interface BudgetLedgerOptions {
  readonly maxKeys?: number;
  readonly maxEntriesPerKey?: number;
}

interface Entry {
  time: number;
  weight: number;
}

export class BudgetLedger {
  readonly #keys = new Map<string, Entry[]>();
  readonly #maxKeys: number;
  readonly #maxEntriesPerKey: number;

  constructor(options: BudgetLedgerOptions = {}) {
    this.#maxKeys = options.maxKeys ?? 10_000;
    this.#maxEntriesPerKey = options.maxEntriesPerKey ?? 10_000;
  }

  /** What `key` spent in the window of `windowMs` ending at `now`. */
  total(key: string, windowMs: number, now: number): number {
    const entries = this.#keys.get(key);
    if (entries === undefined) return 0;
    prune(entries, windowMs, now);
    return entries.reduce((sum, entry) => sum + entry.weight, 0);
  }

  /** Spends `weight` (a request, or a cost in USD) at `now`. */
  add(key: string, windowMs: number, now: number, weight = 1): void {
    let entries = this.#keys.get(key);
    if (entries === undefined) {
      entries = [];
      this.#keys.set(key, entries);
      if (this.#keys.size > this.#maxKeys) {
        const oldest = this.#keys.keys().next().value;
        if (oldest !== undefined) this.#keys.delete(oldest);
      }
    }
    prune(entries, windowMs, now);
    entries.push({ time: now, weight });
    if (entries.length > this.#maxEntriesPerKey) {
      const [oldest, next] = entries.splice(0, 2) as [Entry, Entry];
      entries.unshift({ time: next.time, weight: oldest.weight + next.weight });
    }
  }

  /** Spends one request if that stays within `limit`; false (and nothing spent) otherwise. */
  tryConsume(key: string, windowMs: number, now: number, limit: number): boolean {
    if (this.total(key, windowMs, now) + 1 > limit) return false;
    this.add(key, windowMs, now, 1);
    return true;
  }

  /** Forgets everything spent. */
  clear(): void {
    this.#keys.clear();
  }
}

function prune(entries: Entry[], windowMs: number, now: number): void {
  const cutoff = now - windowMs;
  let drop = 0;
  while (drop < entries.length && entries[drop]!.time <= cutoff) drop++;
  if (drop > 0) entries.splice(0, drop);
}
