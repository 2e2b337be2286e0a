/**
 * @module
 * App tokens: what applications hold instead of provider keys. A token is
 * `sw_{id}_{secret}`; KV keeps only its SHA-256 under `app:{id}`, so a token is shown once, at
 * creation, and can be revoked by id. Verification reads one KV key and compares digests in
 * constant time. Revocation reaches other locations as KV propagates (up to about 60 s).
 */
import type { KvNamespaceLike } from "./bindings.ts";
import { matchesDigest, randomHex, randomToken, sha256Hex } from "./crypto.ts";
import { WorkerError } from "./errors.ts";
import { keyLayout, type StoredAppToken } from "./key-layout.ts";
import { getJson, listAll } from "./kv-list.ts";

const tokenPattern = /^sw_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

/** An app as listed: everything but the token. */
export interface AppView {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly rateLimit: StoredAppToken["rateLimit"];
}

/** Options for {@link AppTokenStore}. */
export interface AppTokenStoreOptions {
  readonly now?: () => number;
}

/** Creates, lists, revokes and verifies app tokens. */
export class AppTokenStore {
  readonly #kv: KvNamespaceLike;
  readonly #options: AppTokenStoreOptions;

  constructor(kv: KvNamespaceLike, options: AppTokenStoreOptions = {}) {
    this.#kv = kv;
    this.#options = options;
  }

  /** Creates an app and returns its token; the token is not stored and cannot be shown again. */
  async create(input: {
    name: string;
    rateLimit?: StoredAppToken["rateLimit"];
  }): Promise<AppView & { token: string }> {
    const id = randomHex(12);
    const token = `sw_${id}_${randomToken(32)}`;
    const stored: StoredAppToken = {
      id,
      name: input.name,
      createdAt: (this.#options.now ?? Date.now)(),
      rateLimit: input.rateLimit ?? null,
      tokenSha256: await sha256Hex(token),
    };
    const view = toView(stored);
    await this.#kv.put(keyLayout.app(id), JSON.stringify(stored), { metadata: view });
    return { ...view, token };
  }

  /** Every app, oldest first. */
  async list(): Promise<AppView[]> {
    const listed = await listAll<AppView>(this.#kv, keyLayout.appPrefix);
    return listed
      .map((entry) => entry.metadata)
      .filter((view): view is AppView => view !== undefined && view !== null)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Revokes an app's token. @throws {WorkerError} 404 for an unknown id. */
  async revoke(id: string): Promise<AppView> {
    const stored = /^[0-9a-f]{12}$/.test(id)
      ? await getJson<StoredAppToken>(this.#kv, keyLayout.app(id))
      : undefined;
    if (stored === undefined) {
      throw new WorkerError({
        status: 404,
        code: "unknown_app",
        message: `No app with id ${JSON.stringify(id.slice(0, 40))}; list apps with GET /app-tokens.`,
      });
    }
    await this.#kv.delete(keyLayout.app(id));
    return toView(stored);
  }

  /** The app a token belongs to, or undefined for any token that is not a live app token. */
  async verify(token: string): Promise<StoredAppToken | undefined> {
    const match = tokenPattern.exec(token);
    if (match === null) return undefined;
    const stored = await getJson<StoredAppToken>(this.#kv, keyLayout.app(match[1]!));
    if (stored === undefined) return undefined;
    return (await matchesDigest(token, stored.tokenSha256)) ? stored : undefined;
  }
}

function toView(stored: StoredAppToken): AppView {
  return {
    id: stored.id,
    name: stored.name,
    createdAt: new Date(stored.createdAt).toISOString(),
    rateLimit: stored.rateLimit,
  };
}
