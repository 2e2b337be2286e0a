/**
 * @module
 * How the ledger's state is shown: per provider, every stored version with its state (current,
 * previous, history, revoked) and flags (near or past the maximum age, expired). This is what
 * `GET /keys` returns and what the cron checks. Built from what the ledger committed, never from
 * KV; it never holds a key's value.
 */
import { defaultKeyName, isExpired, type StoredKeyMetadata } from "../key-layout.ts";
import type { LedgerPointer, PendingWrite, PoolKeyState, ProviderState } from "./ledger-api.ts";

const dayMs = 86_400_000;

/** Something an operator should act on. */
export type KeyFlag = "past-max-age" | "near-max-age" | "expired" | "expires-soon" | "no-key";

export type KeyState = "current" | "previous" | "history" | "revoked";

/** One stored version, as the admin API shows it. */
export interface KeyVersionView {
  readonly version: string;
  readonly state: KeyState;
  readonly fingerprint: string;
  readonly label: string;
  readonly rotatedAt: string;
  readonly expiresAt: string | null;
  readonly retiredAt: string | null;
  readonly revokedAt: string | null;
  /** When the cron removes it from history (retired or revoked versions). */
  readonly historyEndsAt: string | null;
  readonly ageDays: number;
  readonly flags: readonly KeyFlag[];
}

/** Everything stored for one key of a provider's pool. */
export interface PoolKeyView {
  /** The pool key's name (`default` unless named). */
  readonly name: string;
  /** Ledger revision of the last change to this key (0 when none). */
  readonly revision: number;
  readonly current: KeyVersionView | null;
  readonly previous: KeyVersionView | null;
  readonly switchedAt: string | null;
  /**
   * `switchedAt` + `keys.graceSeconds`: until then other locations may still be sending the
   * previous key (KV propagation), so keep it valid at the provider at least that long.
   */
  readonly graceEndsAt: string | null;
  /** Newest first. */
  readonly versions: readonly KeyVersionView[];
  /** Flags of the current version, or `no-key`. */
  readonly flags: readonly KeyFlag[];
}

/** A write-through entry still owed, as the admin API shows it. */
export interface PendingWriteView {
  readonly target: string;
  readonly entry: string;
  readonly state: "pending";
  readonly attempts: number;
  readonly retryAt: string;
  readonly lastError: string | null;
}

/**
 * Everything stored for one provider: its `default` key's fields at the top (the one key of a
 * provider without a pool), every key of the pool in `pool`, and writes still owed.
 */
export interface ProviderKeysView extends Omit<PoolKeyView, "name"> {
  readonly provider: string;
  /** True when the config lists the provider under `keys.providers`. */
  readonly managed: boolean;
  /** Every key of the pool, `default` first. */
  readonly pool: readonly PoolKeyView[];
  /** Write-through entries (KV, BYOK secrets) not yet written; empty when all are. */
  readonly pending: readonly PendingWriteView[];
}

/** The settings a report needs. */
export interface KeyReportSettings {
  readonly now: number;
  readonly maxAgeDays: number;
  readonly historySeconds: number;
  readonly graceSeconds: number;
  readonly managedProviders: readonly string[];
}

/** One provider's ledger state as the admin API shows it. */
export function describeProvider(
  state: ProviderState,
  settings: KeyReportSettings,
): ProviderKeysView {
  const pool = state.keys.map((key) => describeKey(key, settings));
  const main =
    pool.find((key) => key.name === defaultKeyName) ??
    pool[0] ??
    describeKey({ name: defaultKeyName, pointer: null, versions: [] }, settings);
  const { name: _name, ...mainFields } = main;
  return {
    provider: state.provider,
    managed: settings.managedProviders.includes(state.provider),
    ...mainFields,
    // The provider has a usable key when any key of its pool has one.
    flags: pool.some((key) => key.current !== null) ? main.flags : ["no-key"],
    pool,
    pending: state.pending.map(viewPending),
  };
}

/** One key of a pool as the admin API shows it. */
export function describeKey(key: PoolKeyState, settings: KeyReportSettings): PoolKeyView {
  const { pointer } = key;
  const versions = key.versions
    .map((metadata) => viewVersion(metadata, stateOf(metadata, pointer), settings))
    .sort((a, b) => (a.version < b.version ? 1 : a.version > b.version ? -1 : 0));
  const current = versions.find((view) => view.state === "current") ?? null;
  const previous = versions.find((view) => view.state === "previous") ?? null;
  return {
    name: key.name,
    revision: pointer?.revision ?? 0,
    current,
    previous,
    switchedAt: pointer === null ? null : iso(pointer.switchedAt),
    graceEndsAt:
      pointer?.previous == null ? null : iso(pointer.switchedAt + settings.graceSeconds * 1000),
    versions,
    flags: current === null ? ["no-key"] : current.flags,
  };
}

/** Every provider the config manages plus any other provider the ledger holds keys for. */
export function describeAllProviders(
  states: readonly ProviderState[],
  settings: KeyReportSettings,
): ProviderKeysView[] {
  const byName = new Map(states.map((state) => [state.provider, state]));
  const providers = [...new Set([...settings.managedProviders, ...byName.keys()])].sort();
  return providers.map((provider) =>
    describeProvider(byName.get(provider) ?? { provider, keys: [], pending: [] }, settings),
  );
}

function viewPending(write: PendingWrite): PendingWriteView {
  return {
    target: write.target,
    entry: write.entry,
    state: "pending",
    attempts: write.attempts,
    retryAt: iso(write.retryAt),
    lastError: write.lastError ?? null,
  };
}

function stateOf(metadata: StoredKeyMetadata, pointer: LedgerPointer | null): KeyState {
  if (metadata.revokedAt !== null) return "revoked";
  if (pointer?.current === metadata.version) return "current";
  if (pointer?.previous === metadata.version) return "previous";
  return "history";
}

/** One version as the admin API shows it. */
export function viewVersion(
  metadata: StoredKeyMetadata,
  state: KeyState,
  settings: KeyReportSettings,
): KeyVersionView {
  const endedAt = metadata.revokedAt ?? metadata.retiredAt;
  return {
    version: metadata.version,
    state,
    fingerprint: metadata.fingerprint,
    label: metadata.label,
    rotatedAt: iso(metadata.rotatedAt),
    expiresAt: metadata.expiresAt === null ? null : iso(metadata.expiresAt),
    retiredAt: metadata.retiredAt === null ? null : iso(metadata.retiredAt),
    revokedAt: metadata.revokedAt === null ? null : iso(metadata.revokedAt),
    historyEndsAt:
      state === "current" || endedAt === null
        ? null
        : iso(endedAt + settings.historySeconds * 1000),
    ageDays: Math.floor((settings.now - metadata.rotatedAt) / dayMs),
    flags: flagsOf(metadata, settings),
  };
}

/** Age and expiry flags: near max age in the last tenth of `maxAgeDays` (at least one day). */
export function flagsOf(metadata: StoredKeyMetadata, settings: KeyReportSettings): KeyFlag[] {
  const flags: KeyFlag[] = [];
  const age = settings.now - metadata.rotatedAt;
  const maxAge = settings.maxAgeDays * dayMs;
  const warning = Math.max(dayMs, Math.round(maxAge / 10));
  if (age >= maxAge) flags.push("past-max-age");
  else if (age >= maxAge - warning) flags.push("near-max-age");
  if (isExpired(metadata, settings.now)) flags.push("expired");
  else if (metadata.expiresAt !== null && metadata.expiresAt - settings.now <= 7 * dayMs) {
    flags.push("expires-soon");
  }
  return flags;
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
