/**
 * @module
 * The write-through targets of the deployed ledger, from its bindings: KV always; the gateways'
 * BYOK secrets when some gateway stores a key of a provider the Worker holds (`byok.providers` ∩
 * `keys.providers`), written with `SECRETS_STORE_TOKEN` through `CLOUDFLARE_API_URL` into
 * `BYOK_STORE_ID`.
 */
import type { WorkerEnv } from "../bindings.ts";
import type { FetchFunction } from "../handler-context.ts";
import { readWorkerSettings } from "../settings.ts";
import { byokSecretTarget, defaultCloudflareApiUrl, hasByokProviders } from "./byok-target.ts";
import { kvEdgeTarget } from "./kv-edge-target.ts";
import type { WriteThroughTarget } from "./write-through.ts";

/** The targets for a ledger running with `env`. */
export function ledgerTargets(
  env: WorkerEnv,
  fetch: FetchFunction,
  warn: (message: string) => void,
): WriteThroughTarget[] {
  const targets = [kvEdgeTarget(env.KEYS)];
  let settings: ReturnType<typeof readWorkerSettings>;
  try {
    settings = readWorkerSettings(env);
  } catch {
    warn(
      "stepwise worker: STEPWISE_CONFIG is not a valid Worker view of the config; rotations reach KV only",
    );
    return targets;
  }
  const { config } = settings;
  if (hasByokProviders(config.gateways, config.keys.providers)) {
    targets.push(
      byokSecretTarget({
        accountId: config.accountId,
        gateways: config.gateways,
        apiUrl: nonEmpty(env.CLOUDFLARE_API_URL) ?? defaultCloudflareApiUrl,
        apiToken: nonEmpty(env.SECRETS_STORE_TOKEN),
        storeId: nonEmpty(env.BYOK_STORE_ID),
        fetch,
      }),
    );
  }
  return targets;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
