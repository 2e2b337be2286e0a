/**
 * @module
 * The contract between the Worker and the `KeyLedger` Durable Object (RPC): what each call
 * takes and answers. Answers carry metadata only, never a key. A refused operation is an answer
 * (`ok: false` with the HTTP status, code and message the admin API returns), not a thrown error,
 * because RPC keeps only an error's message.
 */
import type { StoredAppToken, StoredKeyMetadata } from "../key-layout.ts";

/** One provider's pointer in the ledger. */
export interface LedgerPointer {
  /** The version the proxy injects; null after a forced revocation of the last key. */
  readonly current: string | null;
  /** The version that was current before; the target of a plain rollback. */
  readonly previous: string | null;
  /** Epoch ms of the last switch. */
  readonly switchedAt: number;
  /** Ledger revision of the last change to this provider. */
  readonly revision: number;
}

/** Everything the ledger holds for one key of a provider's pool, key values left out. */
export interface PoolKeyState {
  /** The pool key's name (`default` unless named). */
  readonly name: string;
  /** Null when no version was ever rotated in. */
  readonly pointer: LedgerPointer | null;
  /** Oldest first. */
  readonly versions: readonly StoredKeyMetadata[];
}

/** Everything the ledger holds for one provider: its pool of keys and its unfinished writes. */
export interface ProviderState {
  readonly provider: string;
  /** The pool, `default` first, then by name; empty when no key was ever rotated in. */
  readonly keys: readonly PoolKeyState[];
  /** Write-through entries of this provider still waiting to be written (KV, BYOK secrets). */
  readonly pending: readonly PendingWrite[];
}

/** One write-through entry and where it stands. */
export interface TargetWrite {
  /** The target: `kv` or `byok`. */
  readonly target: string;
  /** What it writes: a KV key (`current:openai`) or a secret name (`chat_openai_default`). */
  readonly entry: string;
  readonly state: "written" | "pending";
}

/** A write still owed to a target. */
export interface PendingWrite extends TargetWrite {
  readonly state: "pending";
  /** Failed attempts so far. */
  readonly attempts: number;
  /** Epoch ms of the next attempt (the ledger's alarm). */
  readonly retryAt: number;
  /** Why the last attempt failed, e.g. a missing token (never a value). */
  readonly lastError?: string;
}

/** How far a commit has reached the edge read path (KV) and the other targets. */
export interface Propagation {
  /** True when every KV record the commit changed was written before the answer. */
  readonly written: boolean;
  /** Epoch ms by which every location reads it (the write plus KV's propagation); null while pending. */
  readonly visibleEverywhereBy: number | null;
  /** Every entry the commit changed, in every target, written or still pending. */
  readonly targets: readonly TargetWrite[];
}

/** Why the ledger refused an operation, as the admin API answers it. */
export interface LedgerRefusal {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

/** A committed change, or a refusal. */
export type LedgerAnswer<Value> =
  | {
      readonly ok: true;
      readonly value: Value;
      /** The ledger revision this change committed as (increasing, never reused). */
      readonly revision: number;
      readonly propagation: Propagation;
    }
  | { readonly ok: false; readonly refusal: LedgerRefusal };

/** What a rotation stores. */
export interface RotateRequest {
  readonly key: string;
  /** Epoch ms when the provider stops accepting the key. */
  readonly expiresAt: number | null;
  readonly label: string;
}

/** A new app, its token already hashed by the Worker (the token never reaches the ledger). */
export interface NewApp {
  readonly id: string;
  readonly name: string;
  readonly rateLimit: StoredAppToken["rateLimit"];
  readonly allow?: StoredAppToken["allow"];
  readonly tokenSha256: string;
}

/** What a sweep removed for one key of a provider's pool. */
export interface SweepResult {
  readonly provider: string;
  readonly name: string;
  /** Versions deleted: retired or revoked longer ago than the history window. */
  readonly removed: readonly string[];
}

/** The ledger's RPC methods. `name` is the pool key (`default` unless named). */
export interface KeyLedgerApi {
  rotate(
    provider: string,
    name: string,
    request: RotateRequest,
  ): Promise<LedgerAnswer<{ readonly version: StoredKeyMetadata; readonly state: ProviderState }>>;
  rollback(
    provider: string,
    name: string,
    toVersion: string | null,
  ): Promise<LedgerAnswer<ProviderState>>;
  revoke(
    provider: string,
    name: string,
    version: string,
    force: boolean,
  ): Promise<LedgerAnswer<ProviderState>>;
  /** Takes a key out of the pool: every version of it is revoked (its value erased). */
  removeKey(provider: string, name: string): Promise<LedgerAnswer<ProviderState>>;
  provider(provider: string): Promise<ProviderState>;
  /** Every provider that ever had a key, sorted by name. */
  providers(): Promise<ProviderState[]>;
  createApp(app: NewApp): Promise<LedgerAnswer<StoredAppToken>>;
  /** Every app, oldest first. */
  apps(): Promise<StoredAppToken[]>;
  revokeApp(id: string): Promise<LedgerAnswer<StoredAppToken>>;
  /** Deletes history older than `historySeconds` (by the ledger's clock). */
  sweep(historySeconds: number): Promise<SweepResult[]>;
}

/** The name of the one ledger object. */
export const ledgerName = "key-ledger";
