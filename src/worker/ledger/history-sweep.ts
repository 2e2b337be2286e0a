/**
 * @module
 * Which versions of a pool key the sweep removes: those that are neither current nor ended less
 * than the history window ago (by the ledger's clock), and what the key's pointer becomes.
 */
import type { PoolKeyState } from "./ledger-api.ts";

/** What the sweep does to one pool key. */
export interface KeySweep {
  /** The versions to delete. */
  readonly removed: readonly string[];
  /** The key has no current version and loses every version: it leaves the pool entirely. */
  readonly emptied: boolean;
  /** The pointer's `previous` after the sweep (null when it was removed). */
  readonly previous: string | null;
}

/** The sweep of one pool key at `now`, keeping `historySeconds` of history. */
export function planKeySweep(key: PoolKeyState, now: number, historySeconds: number): KeySweep {
  const removed = key.versions
    .filter((metadata) => {
      const endedAt = metadata.revokedAt ?? metadata.retiredAt;
      return (
        metadata.version !== key.pointer?.current &&
        endedAt !== null &&
        now - endedAt >= historySeconds * 1000
      );
    })
    .map((metadata) => metadata.version);
  const pointer = key.pointer;
  const emptied =
    pointer !== null && pointer.current === null && removed.length === key.versions.length;
  const previous =
    pointer?.previous != null && !removed.includes(pointer.previous) ? pointer.previous : null;
  return { removed, emptied, previous };
}
