/**
 * @module
 * The account's Secrets Store, as AI Gateway's BYOK uses it: stores, and secrets in them with a
 * name, scopes and a write-only value. AI Gateway finds a provider key by the secret's name,
 * `{gateway}_{provider}_{alias}`, in the gateway's store (`store_id`), and only when the secret's
 * scopes include `ai_gateway`. Overwriting a secret's value takes effect on the next request.
 *
 * Limits modelled (aig-spec §8): a value is at most 64 KiB, and it is never returned — no API
 * answer and no log carries it.
 */
import { createHash } from "node:crypto";
import { SecretsStoreRefusal } from "../errors.ts";

/** Largest secret value (Secrets Store: 64 KiB). */
export const maxSecretValueBytes = 64 * 1024;

export const secretScopes = [
  "workers",
  "ai_gateway",
  "dex",
  "access",
  "containers",
  "websearch",
] as const;
export type SecretScope = (typeof secretScopes)[number];

export interface StoreRecord {
  readonly id: string;
  readonly name: string;
  readonly created: string;
  modified: string;
}

export interface SecretRecord {
  readonly id: string;
  readonly store_id: string;
  readonly name: string;
  value: string;
  scopes: SecretScope[];
  comment?: string;
  readonly created: string;
  modified: string;
}

/** A secret as the API shows it: everything but the value. */
export function secretJson(secret: SecretRecord) {
  const { value: _value, ...shown } = secret;
  return { ...shown, status: "active" as const };
}

export class SecretsStore {
  readonly #stores = new Map<string, StoreRecord>();
  readonly #secrets = new Map<string, SecretRecord>();
  readonly #generateId: () => string;
  readonly #time: () => string;

  constructor(generateId: () => string, time: () => string) {
    this.#generateId = generateId;
    this.#time = time;
  }

  createStore(name: string): StoreRecord {
    const time = this.#time();
    const store = { id: this.#id(), name, created: time, modified: time };
    this.#stores.set(store.id, store);
    return store;
  }

  listStores(): StoreRecord[] {
    return [...this.#stores.values()];
  }

  getStore(id: string): StoreRecord | undefined {
    return this.#stores.get(id);
  }

  /** Deletes a store and its secrets. */
  deleteStore(id: string): boolean {
    for (const secret of this.listSecrets(id)) this.#secrets.delete(secret.id);
    return this.#stores.delete(id);
  }

  /** @throws {SecretsStoreRefusal} for an unknown store, a taken name or a value over 64 KiB. */
  createSecret(
    storeId: string,
    input: { name: string; value: string; scopes: SecretScope[]; comment?: string | undefined },
  ): SecretRecord {
    this.#requireStore(storeId);
    if (this.findByName(storeId, input.name)) {
      throw new SecretsStoreRefusal(
        "conflict",
        `A secret named "${input.name}" already exists in store ${storeId}; edit it instead.`,
      );
    }
    checkValue(input.value);
    const time = this.#time();
    const secret: SecretRecord = {
      id: this.#id(),
      store_id: storeId,
      name: input.name,
      value: input.value,
      scopes: [...input.scopes],
      ...(input.comment === undefined ? {} : { comment: input.comment }),
      created: time,
      modified: time,
    };
    this.#secrets.set(secret.id, secret);
    return secret;
  }

  listSecrets(storeId: string): SecretRecord[] {
    return [...this.#secrets.values()].filter((secret) => secret.store_id === storeId);
  }

  getSecret(storeId: string, id: string): SecretRecord | undefined {
    const secret = this.#secrets.get(id);
    return secret?.store_id === storeId ? secret : undefined;
  }

  findByName(storeId: string, name: string): SecretRecord | undefined {
    return this.listSecrets(storeId).find((secret) => secret.name === name);
  }

  /** Overwrites a secret's value, scopes or comment; the new value applies at once. */
  editSecret(
    secret: SecretRecord,
    changes: { value?: string | undefined; scopes?: SecretScope[] | undefined; comment?: string },
  ): SecretRecord {
    if (changes.value !== undefined) {
      checkValue(changes.value);
      secret.value = changes.value;
    }
    if (changes.scopes !== undefined) secret.scopes = [...changes.scopes];
    if (changes.comment !== undefined) secret.comment = changes.comment;
    secret.modified = this.#time();
    return secret;
  }

  deleteSecret(secret: SecretRecord): void {
    this.#secrets.delete(secret.id);
  }

  #requireStore(storeId: string): StoreRecord {
    const store = this.#stores.get(storeId);
    if (!store) throw new SecretsStoreRefusal("not_found", `Store "${storeId}" not found.`);
    return store;
  }

  /** Secrets Store ids are 32 lowercase hex characters (derived from the injected id source). */
  #id(): string {
    return createHash("sha256").update(this.#generateId()).digest("hex").slice(0, 32);
  }
}

function checkValue(value: string): void {
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > maxSecretValueBytes) {
    throw new SecretsStoreRefusal(
      "too_large",
      `A secret value holds at most ${maxSecretValueBytes} bytes; this one has ${bytes}.`,
    );
  }
}
