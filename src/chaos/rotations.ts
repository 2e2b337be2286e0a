/**
 * @module
 * Key rotations the way a careful operator does them with a real provider: the provider issues a
 * new key while the old one stays valid, the operator rotates the new key in through the Worker's
 * admin API (`PUT /keys/{provider}`), and only once every call that may still carry the old key
 * has ended (its deadline has passed) is the old key revoked at the provider. Calls in flight
 * during the switch keep working, so a rotation never fails a call; the campaign checks that by
 * counting provider attempts refused for their key.
 */
import { randomBytes } from "node:crypto";
import type { MockProviders } from "../emulator/mocks/index.ts";
import { rotateKey } from "../worker-admin/index.ts";
import type { Secret } from "./leak-scanner.ts";

export interface RotatorOptions {
  readonly workerUrl: string;
  readonly adminToken: string;
  readonly mocks: MockProviders;
  /** The key each rotated provider holds now. */
  readonly currentKeys: ReadonlyMap<string, string>;
  /** How long the old key stays valid after the Worker switched: longer than any call. */
  readonly drainMs: number;
  /** Told about each new key before it is used anywhere (the leak scanner adds it). */
  readonly onKey?: (secret: Secret) => void;
  /** Told about each rotation, for progress output. */
  readonly onRotation?: (line: string) => void;
  readonly fetch?: typeof globalThis.fetch;
}

/** What the rotations did so far. */
export interface RotatorTotals {
  readonly done: number;
  readonly failed: number;
  readonly revoked: number;
  /** Why rotations failed, one message each (keys are never in them). */
  readonly errors: readonly string[];
}

export interface Rotator {
  /** Rotates one provider's key; resolves when the Worker has switched (never rejects). */
  rotate(provider: string): Promise<void>;
  /** Revokes every old key still draining, at once (call when no call is in flight). */
  finish(): void;
  totals(): RotatorTotals;
}

/** Starts a rotator for the providers of `currentKeys`. */
export function createRotator(options: RotatorOptions): Rotator {
  const accepted = new Map<string, string[]>();
  const current = new Map(options.currentKeys);
  for (const [provider, key] of current) accepted.set(provider, [key]);
  const versions = new Map<string, number>();
  const draining = new Map<NodeJS.Timeout, () => void>();
  const errors: string[] = [];
  let done = 0;
  let failed = 0;
  let revoked = 0;

  const retire = (provider: string, old: string) => {
    const keys = (accepted.get(provider) ?? []).filter((key) => key !== old);
    accepted.set(provider, keys);
    options.mocks.setKeys(provider, keys);
    options.mocks.revokeKey(provider, old);
    revoked += 1;
  };

  return {
    async rotate(provider) {
      const old = current.get(provider);
      const version = (versions.get(provider) ?? 1) + 1;
      versions.set(provider, version);
      const key = `chaos-${provider}-${version}-${randomBytes(12).toString("hex")}`;
      options.onKey?.({ label: `${provider} key #${version}`, value: key });
      // The provider issues the new key; the old one stays valid until revoked.
      const keys = [...(accepted.get(provider) ?? []), key];
      accepted.set(provider, keys);
      options.mocks.setKeys(provider, keys);
      try {
        const rotated = await rotateKey({
          workerUrl: options.workerUrl,
          provider,
          key,
          token: options.adminToken,
          label: `chaos rotation #${version}`,
          fetch: options.fetch ?? globalThis.fetch,
        });
        done += 1;
        current.set(provider, key);
        options.onRotation?.(
          `rotated ${provider} to version ${rotated.version} (${rotated.fingerprint}) through the Worker`,
        );
      } catch (error) {
        failed += 1;
        errors.push(`${provider}: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      if (old === undefined) return;
      const revoke = () => retire(provider, old);
      const timer = setTimeout(() => {
        draining.delete(timer);
        revoke();
      }, options.drainMs);
      draining.set(timer, revoke);
    },
    finish() {
      for (const [timer, revoke] of draining) {
        clearTimeout(timer);
        revoke();
      }
      draining.clear();
    },
    totals: () => ({ done, failed, revoked, errors }),
  };
}
