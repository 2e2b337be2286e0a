/**
 * @module
 * The key lifecycle as pure decisions over the ledger's truth: what a rotation, rollback or
 * revocation changes (or why it is refused). `KeyLedgerCore` reads the truth, asks here, and
 * commits the answer in one transaction.
 */
import { defaultKeyName, isExpired, type StoredKeyMetadata } from "../key-layout.ts";
import type { LedgerPointer, LedgerRefusal } from "./ledger-api.ts";
import type { LedgerVersion } from "./ledger-storage.ts";

/** One pool key's truth before a change. */
export interface ProviderTruth {
  readonly provider: string;
  /** The pool key (`default` unless named). */
  readonly name: string;
  readonly pointer: LedgerPointer | undefined;
  /** Reads one stored version. */
  version(version: string): Promise<LedgerVersion | undefined>;
}

/** What a change writes: the new pointer (without its revision) and the versions it rewrites. */
export interface LifecyclePlan {
  readonly pointer: Omit<LedgerPointer, "revision">;
  readonly versions: readonly LedgerVersion[];
  /** True when the key the proxy injects changed. */
  readonly currentChanged: boolean;
}

export type Decision = { ok: true; plan: LifecyclePlan } | { ok: false; refusal: LedgerRefusal };

/** A rotation: `added` becomes current, the old current becomes previous (retired). */
export async function planRotation(
  truth: ProviderTruth,
  added: LedgerVersion,
  now: number,
): Promise<LifecyclePlan> {
  const before = truth.pointer?.current ?? null;
  const versions: LedgerVersion[] = [added];
  const retired = before === null ? undefined : await retire(truth, before, now);
  if (retired !== undefined) versions.push(retired);
  return {
    pointer: { current: added.metadata.version, previous: before, switchedAt: now },
    versions,
    currentChanged: true,
  };
}

/** A rollback to `toVersion`, or to the previous version. */
export async function planRollback(
  truth: ProviderTruth,
  toVersion: string | null,
  now: number,
): Promise<Decision> {
  const { pointer } = truth;
  const subject = subjectOf(truth);
  if (pointer === undefined) {
    return refuse(
      409,
      "no_current_key",
      `No key was ever stored for ${subject}: rotate one in first.`,
    );
  }
  const target = toVersion ?? pointer.previous;
  if (target === null || target === pointer.current) {
    return refuse(
      409,
      "no_previous_version",
      `${subject} has no previous version to roll back to; name one with { "version": "…" } (see GET /keys/${truth.provider}).`,
    );
  }
  const stored = await truth.version(target);
  if (stored === undefined || stored.key === null || stored.metadata.revokedAt !== null) {
    return unknownVersion(truth, target);
  }
  if (isExpired(stored.metadata, now)) {
    return refuse(
      409,
      "key_expired",
      `${subject} version ${target} expired at ${new Date(stored.metadata.expiresAt ?? 0).toISOString()}; rotate a new key in instead.`,
    );
  }
  const versions: LedgerVersion[] = [
    { ...stored, metadata: { ...stored.metadata, retiredAt: null } },
  ];
  const retired = pointer.current === null ? undefined : await retire(truth, pointer.current, now);
  if (retired !== undefined) versions.push(retired);
  return {
    ok: true,
    plan: {
      pointer: { current: target, previous: pointer.current, switchedAt: now },
      versions,
      currentChanged: true,
    },
  };
}

/** A revocation: the value is erased; revoking current falls back to a usable previous. */
export async function planRevocation(
  truth: ProviderTruth,
  version: string,
  force: boolean,
  now: number,
): Promise<Decision> {
  const { pointer } = truth;
  const subject = subjectOf(truth);
  const stored = await truth.version(version);
  if (stored === undefined || stored.metadata.revokedAt !== null) {
    return unknownVersion(truth, version);
  }
  const metadata: StoredKeyMetadata = {
    ...stored.metadata,
    revokedAt: now,
    retiredAt: stored.metadata.retiredAt ?? now,
  };
  const versions: LedgerVersion[] = [{ metadata, key: null }];
  let next: Omit<LedgerPointer, "revision"> = {
    current: pointer?.current ?? null,
    previous: pointer?.previous ?? null,
    switchedAt: pointer?.switchedAt ?? now,
  };
  let currentChanged = false;
  if (pointer?.current === version) {
    const fallback = pointer.previous === null ? undefined : await truth.version(pointer.previous);
    const usable =
      fallback !== undefined &&
      fallback.key !== null &&
      fallback.metadata.revokedAt === null &&
      !isExpired(fallback.metadata, now);
    if (usable && pointer.previous !== null) {
      versions.push({ ...fallback, metadata: { ...fallback.metadata, retiredAt: null } });
      next = { current: pointer.previous, previous: null, switchedAt: now };
    } else if (force) {
      next = { current: null, previous: null, switchedAt: now };
    } else {
      return refuse(
        409,
        "no_fallback_key",
        `${version} is the only usable version of ${subject}; rotate a new key in first, or add ?force=true to leave ${subject} without a key.`,
      );
    }
    currentChanged = true;
  } else if (pointer?.previous === version) {
    next = { ...next, previous: null };
  }
  return { ok: true, plan: { pointer: next, versions, currentChanged } };
}

/** The old current as history: `retiredAt` set (kept when already set), untouched when revoked. */
async function retire(
  truth: ProviderTruth,
  version: string,
  now: number,
): Promise<LedgerVersion | undefined> {
  const stored = await truth.version(version);
  if (stored === undefined || stored.metadata.revokedAt !== null) return undefined;
  return { ...stored, metadata: { ...stored.metadata, retiredAt: now } };
}

function refuse(status: number, code: string, message: string): Decision {
  return { ok: false, refusal: { status, code, message } };
}

function unknownVersion(truth: ProviderTruth, version: string): Decision {
  return refuse(
    404,
    "unknown_version",
    `${subjectOf(truth)} has no usable version ${version}; list versions with GET /keys/${truth.provider}.`,
  );
}

/** How messages name a pool key: the provider alone for its `default` key. */
export function subjectOf(truth: { readonly provider: string; readonly name: string }): string {
  return truth.name === defaultKeyName ? truth.provider : `${truth.provider} key "${truth.name}"`;
}
