/**
 * @module
 * The read side of the key store: per provider, every stored version with its state
 * (current, previous, history, revoked) and flags (near or past the maximum age, expired). This
 * is what `GET /keys` returns and what the cron checks. It never reads a key's value.
 */
import type { KvNamespaceLike } from "./bindings.ts";
import { type CurrentPointer, isExpired, keyLayout, type StoredKeyMetadata } from "./key-layout.ts";
import { listAll } from "./kv-list.ts";

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

/** Everything stored for one provider. */
export interface ProviderKeysView {
  readonly provider: string;
  /** True when the config lists the provider under `keys.providers`. */
  readonly managed: boolean;
  readonly current: KeyVersionView | null;
  readonly previous: KeyVersionView | null;
  readonly switchedAt: string | null;
  /** Until when readers may still fall back to `previous`. */
  readonly graceEndsAt: string | null;
  /** Newest first. */
  readonly versions: readonly KeyVersionView[];
  /** Flags of the current version, or `no-key`. */
  readonly flags: readonly KeyFlag[];
}

/** The settings a report needs. */
export interface KeyReportSettings {
  readonly now: number;
  readonly maxAgeDays: number;
  readonly historySeconds: number;
  readonly graceSeconds: number;
  readonly managedProviders: readonly string[];
}

/** Reads every version of one provider. */
export async function describeProvider(
  kv: KvNamespaceLike,
  provider: string,
  settings: KeyReportSettings,
): Promise<ProviderKeysView> {
  const [listed, pointerText] = await Promise.all([
    listAll<StoredKeyMetadata>(kv, keyLayout.versionPrefix(provider)),
    kv.get(keyLayout.current(provider), "text"),
  ]);
  const pointer = parsePointer(pointerText);
  const versions = listed
    .map((entry) => entry.metadata)
    .filter(
      (metadata): metadata is StoredKeyMetadata => metadata !== undefined && metadata !== null,
    )
    .map((metadata) => viewVersion(metadata, stateOf(metadata, pointer), settings))
    .sort((a, b) => (a.version < b.version ? 1 : a.version > b.version ? -1 : 0));
  const current = versions.find((view) => view.state === "current") ?? null;
  const previous = versions.find((view) => view.state === "previous") ?? null;
  return {
    provider,
    managed: settings.managedProviders.includes(provider),
    current,
    previous,
    switchedAt: pointer === undefined ? null : iso(pointer.switchedAt),
    graceEndsAt:
      pointer?.previous == null ? null : iso(pointer.switchedAt + settings.graceSeconds * 1000),
    versions,
    flags: current === null ? ["no-key"] : current.flags,
  };
}

/** Every provider the config manages plus any other provider with stored keys. */
export async function describeAllProviders(
  kv: KvNamespaceLike,
  settings: KeyReportSettings,
): Promise<ProviderKeysView[]> {
  const pointers = await listAll(kv, keyLayout.currentPrefix);
  const stored = pointers.map((entry) => entry.name.slice(keyLayout.currentPrefix.length));
  const providers = [...new Set([...settings.managedProviders, ...stored])].sort();
  return Promise.all(providers.map((provider) => describeProvider(kv, provider, settings)));
}

function stateOf(metadata: StoredKeyMetadata, pointer: CurrentPointer | undefined): KeyState {
  if (metadata.revokedAt !== null) return "revoked";
  if (pointer?.version === metadata.version) return "current";
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

/** Reads a stored pointer; undefined when absent or unreadable. */
export function parsePointer(text: string | null): CurrentPointer | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as CurrentPointer;
  } catch {
    return undefined;
  }
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
