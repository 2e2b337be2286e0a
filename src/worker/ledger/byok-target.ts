/**
 * @module
 * The write-through target that keeps the gateways' stored keys (BYOK) in line with the ledger:
 * after a change to a provider's `default` key commits, every gateway whose config lists the
 * provider in `byok.providers` gets its Secrets Store secret `{gateway}_{provider}_default`
 * overwritten with that key, so `dynamic/<route>` calls (which only the gateway's stored key can
 * serve) change keys together with the calls the Worker proxies. Cloudflare applies a new secret
 * value on the very next request.
 *
 * Cloudflare's API, with the Worker's `SECRETS_STORE_TOKEN` (an API token allowed to edit Secrets
 * Store, nothing else): the secret is found by name in the store every BYOK gateway points at
 * (`BYOK_STORE_ID`, the gateway's `store_id`, bound at deploy time so the token needs no AI Gateway
 * permission) — `GET /accounts/{account}/secrets_store/stores/{store}/secrets?search={name}` — and
 * overwritten with `PATCH …/secrets/{id}` `{ "value": … }`. A failed write (no token, the API
 * unreachable, a refusal) stays in the ledger's outbox and the alarm retries it with backoff; the
 * admin API shows it as pending. No value is ever logged or put in an error.
 *
 * With no usable `default` key left (a forced revocation, the key taken out of the pool) the
 * secret is overwritten with a placeholder that no provider accepts, so the revoked key does not
 * stay in the gateway; a dynamic route then falls back past that provider.
 */
import type { WorkerViewGateway } from "../../config/worker-view.ts";
import type { FetchFunction } from "../handler-context.ts";
import { defaultKeyName } from "../key-layout.ts";
import { currentKey } from "./kv-edge-target.ts";
import type { LedgerReader } from "./ledger-storage.ts";
import type { LedgerChange, WriteThroughTarget } from "./write-through.ts";

/** Cloudflare's API base. */
export const defaultCloudflareApiUrl = "https://api.cloudflare.com/client/v4";
/** What a BYOK secret holds when the Worker has no usable key for it. */
export const noKeyPlaceholder = "stepwise-no-usable-key";

/** Where the secrets are and how to reach them. */
export interface ByokTargetOptions {
  readonly accountId: string;
  readonly gateways: readonly WorkerViewGateway[];
  /** `CLOUDFLARE_API_URL`; Cloudflare's by default, the emulator's REST URL locally. */
  readonly apiUrl: string;
  /** `SECRETS_STORE_TOKEN`; undefined leaves every write pending. */
  readonly apiToken: string | undefined;
  /** `BYOK_STORE_ID`: the store every BYOK gateway points at; undefined leaves writes pending. */
  readonly storeId: string | undefined;
  readonly fetch: FetchFunction;
}

/** The BYOK secret name AI Gateway looks keys up by. */
export function byokSecretName(gateway: string, provider: string, alias = defaultKeyName): string {
  return `${gateway}_${provider}_${alias}`;
}

/** True when some gateway stores a key of one of `providers`. */
export function hasByokProviders(
  gateways: readonly WorkerViewGateway[],
  providers: readonly string[],
): boolean {
  return gateways.some((gateway) =>
    (gateway.byok?.providers ?? []).some((provider) => providers.includes(provider)),
  );
}

/** A write that failed; the message names the cause and the fix, never a value. */
export class ByokWriteError extends Error {
  override readonly name = "ByokWriteError";
}

/** The BYOK target. */
export function byokSecretTarget(options: ByokTargetOptions): WriteThroughTarget {
  const secretIds = new Map<string, string>();
  const api = options.apiUrl.replace(/\/+$/, "");
  const storeUrl = () =>
    `${api}/accounts/${options.accountId}/secrets_store/stores/${encodeURIComponent(options.storeId ?? "")}`;
  const call = async (url: string, init: RequestInit): Promise<Response> => {
    try {
      return await options.fetch(url, {
        ...init,
        headers: {
          authorization: `Bearer ${options.apiToken}`,
          "content-type": "application/json",
        },
      });
    } catch {
      throw new ByokWriteError(`Cloudflare's API at ${api} could not be reached`);
    }
  };
  const findSecret = async (name: string): Promise<string> => {
    const known = secretIds.get(name);
    if (known !== undefined) return known;
    const response = await call(
      `${storeUrl()}/secrets?search=${encodeURIComponent(name)}&per_page=100`,
      { method: "GET" },
    );
    if (!response.ok)
      throw await refused(response, `listing the secrets of store ${options.storeId}`);
    const body = (await response.json()) as { result?: { id?: string; name?: string }[] };
    const found = body.result?.find((secret) => secret.name === name)?.id;
    if (found === undefined) {
      throw new ByokWriteError(
        `store ${options.storeId} has no secret ${name}: deploy the gateway's BYOK keys with Pulumi (byok.providers) first`,
      );
    }
    secretIds.set(name, found);
    return found;
  };
  return {
    name: "byok",
    retryAfterMs: 2000,
    // Cloudflare applies a new secret value on the next request.
    propagationMs: 0,
    entriesFor(change: LedgerChange): readonly string[] {
      if (change.kind !== "provider-key" || change.name !== defaultKeyName) return [];
      return options.gateways
        .filter((gateway) => gateway.byok?.providers.includes(change.provider))
        .map((gateway) => byokSecretName(gateway.id, change.provider));
    },
    async apply(entry: string, truth: LedgerReader): Promise<void> {
      if (options.apiToken === undefined || options.storeId === undefined) {
        throw new ByokWriteError(
          "SECRETS_STORE_TOKEN or BYOK_STORE_ID is not set: bind both (Pulumi does) so rotations reach the gateway's stored keys",
        );
      }
      const [, provider] = entry.split("_");
      const key = await currentKey(truth, provider ?? "", defaultKeyName);
      const value = key?.key ?? noKeyPlaceholder;
      for (let attempt = 0; attempt < 2; attempt++) {
        const id = await findSecret(entry);
        const response = await call(`${storeUrl()}/secrets/${encodeURIComponent(id)}`, {
          method: "PATCH",
          body: JSON.stringify({ value }),
        });
        if (response.ok) {
          await response.body?.cancel();
          return;
        }
        // The secret was deleted and made again (a new id): look it up once more.
        secretIds.delete(entry);
        if (response.status !== 404 || attempt === 1) {
          throw await refused(response, `overwriting ${entry}`);
        }
        await response.body?.cancel();
      }
    },
  };
}

async function refused(response: Response, doing: string): Promise<ByokWriteError> {
  let code = "";
  try {
    const body = (await response.json()) as { errors?: { code?: number }[] };
    const first = body.errors?.[0]?.code;
    if (typeof first === "number") code = ` (code ${first})`;
  } catch {
    // Not the API's envelope: the status says enough.
  }
  const hint =
    response.status === 401 || response.status === 403
      ? ": SECRETS_STORE_TOKEN needs the Secrets Store edit permission on this account"
      : "";
  return new ByokWriteError(
    `Cloudflare's API answered ${response.status}${code} to ${doing}${hint}`,
  );
}
