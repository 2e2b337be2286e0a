/**
 * @module
 * App tokens: what applications hold instead of provider keys. A token is
 * `sw_{id}_{secret}`; only its SHA-256 is kept (in the ledger, written through to KV under
 * `app:{id}`), so a token is shown once, at creation, and can be revoked by id. Verification
 * reads one KV key and compares digests in constant time. A revocation reaches other locations
 * as KV propagates (about 60 s).
 */
import { matchesDigest, randomHex, randomToken, sha256Hex } from "./crypto.ts";
import type { EdgeReader } from "./edge-reader.ts";
import type { StoredAppToken } from "./key-layout.ts";
import type { NewApp } from "./ledger/ledger-api.ts";

const tokenPattern = /^sw_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

/** An app as listed: everything but the token. */
export interface AppView {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly rateLimit: StoredAppToken["rateLimit"];
  /** What the app may do beyond the default (no gateway controls; every gateway and provider). */
  readonly allow: NonNullable<StoredAppToken["allow"]>;
}

/** A new app's id, its token (returned once) and what the ledger stores of it. */
export async function newAppToken(input: {
  name: string;
  rateLimit?: StoredAppToken["rateLimit"] | undefined;
  allow?: StoredAppToken["allow"] | undefined;
}): Promise<{ token: string; app: NewApp }> {
  const id = randomHex(12);
  const token = `sw_${id}_${randomToken(32)}`;
  return {
    token,
    app: {
      id,
      name: input.name,
      rateLimit: input.rateLimit ?? null,
      allow: input.allow ?? {},
      tokenSha256: await sha256Hex(token),
    },
  };
}

/** The app a token belongs to, or undefined for any token that is not a live app token. */
export async function verifyAppToken(
  edge: EdgeReader,
  token: string,
): Promise<StoredAppToken | undefined> {
  const match = tokenPattern.exec(token);
  if (match === null) return undefined;
  const stored = await edge.app(match[1]!);
  if (stored === undefined) return undefined;
  return (await matchesDigest(token, stored.tokenSha256)) ? stored : undefined;
}

/** An app as the admin API shows it. */
export function appView(stored: StoredAppToken): AppView {
  return {
    id: stored.id,
    name: stored.name,
    createdAt: new Date(stored.createdAt).toISOString(),
    rateLimit: stored.rateLimit,
    allow: stored.allow ?? {},
  };
}
