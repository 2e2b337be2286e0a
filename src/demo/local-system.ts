/**
 * @module
 * The whole system on one machine: the emulated gateway (with mock providers that check keys),
 * the companion Worker in workerd with a real local KV seeded with demo keys, and an app token.
 * Applications talk to the Worker; the Worker injects keys and forwards to the emulator. The
 * Worker gets the emulator's REST URL as its Cloudflare API, so a rotation also overwrites the
 * BYOK gateways' stored keys that `dynamic/<route>` calls use.
 */
import { createHash, randomBytes } from "node:crypto";
import Cloudflare from "cloudflare";
import { type StepwiseConfig, workerViewText } from "../config/index.ts";
import { type Emulator, startEmulator } from "../emulator/index.ts";
import { createAppToken, type RotatedVersion, rotateKey } from "../worker-admin/index.ts";
import {
  buildWorkerBundle,
  builtFromSources,
  type RunningWorker,
  startWorker,
  type WorkerBundle,
} from "./local-worker.ts";

export interface LocalSystem {
  readonly emulator: Emulator;
  readonly worker: RunningWorker;
  /** The app token applications send to the Worker (never a provider key). */
  readonly appToken: string;
  /** The Worker's admin token, for rotations. */
  readonly adminToken: string;
  /** The key each provider currently accepts (demo values, never printed). */
  currentKey(provider: string): string;
  /** A provider issues a new key and the operator rotates it in through the Worker's admin API. */
  rotate(provider: string, label: string): Promise<RotatedVersion>;
  /**
   * The fingerprint of the key each BYOK secret of `provider` holds in the emulated gateways
   * (`{gateway}_{provider}_default`): what `dynamic/<route>` calls use.
   */
  storedKeyFingerprints(provider: string): { secret: string; fingerprint: string }[];
  /** The provider revokes the key the Worker is injecting. */
  revoke(provider: string): void;
  close(): Promise<void>;
}

export interface StartLocalSystemOptions {
  readonly config: StepwiseConfig;
  /** Told about each start-up step, for progress output. */
  readonly onStep?: (message: string) => void;
}

/** Starts emulator, mock providers and Worker, and seeds the Worker's KV through its admin API. */
export async function startLocalSystem(options: StartLocalSystemOptions): Promise<LocalSystem> {
  const { config } = options;
  // The Worker's view, built by the same function as Pulumi's and refused here when Cloudflare
  // would refuse it (too big for a Worker variable), before anything starts.
  const workerConfig = workerViewText(config);
  const say = options.onStep ?? (() => undefined);
  const providers = config.keys.providers;
  const generation = new Map<string, number>(providers.map((provider) => [provider, 1]));
  const keyFor = (provider: string, version: number) =>
    `demo-${provider}-${version}-${randomBytes(6).toString("hex")}`;
  const keys = new Map(providers.map((provider) => [provider, keyFor(provider, 1)]));

  say("starting the emulated AI Gateway and mock providers");
  const emulator = await startEmulator({
    config,
    mockKeys: Object.fromEntries([...keys].map(([provider, key]) => [provider, [key]])),
    // The gateways store the same first keys; every rotation then overwrites them through the
    // Worker.
    byokKeys: Object.fromEntries(keys),
    onError: () => undefined,
  });
  let bundle: WorkerBundle | undefined;
  let worker: RunningWorker | undefined;
  try {
    say(
      builtFromSources()
        ? "bundling the companion Worker (wrangler deploy --dry-run)"
        : "using the package's pre-built companion Worker (dist/worker-bundle/)",
    );
    bundle = await buildWorkerBundle();
    say("starting the Worker in workerd with a local KV namespace");
    const adminToken = randomBytes(24).toString("base64url");
    const byokGateway = config.gateways.find((gateway) => gateway.byok !== undefined);
    worker = await startWorker(bundle.scriptPath, {
      ROTATE_TOKEN: adminToken,
      GATEWAY_TOKEN: emulator.gatewayToken,
      GATEWAY_URL: emulator.url,
      STEPWISE_CONFIG: workerConfig,
      CLOUDFLARE_API_URL: emulator.restUrl,
      // The emulator's REST API takes its gateway token as the Cloudflare API token.
      SECRETS_STORE_TOKEN: emulator.gatewayToken,
      BYOK_STORE_ID: byokGateway === undefined ? "" : await storeIdOf(emulator, byokGateway.id),
    });
    const running = worker;
    say(`seeding ${providers.length} provider keys through the Worker's admin API`);
    for (const provider of providers) {
      await rotateKey({
        workerUrl: running.url,
        provider,
        key: keys.get(provider)!,
        token: adminToken,
        label: "demo seed",
        fetch,
      });
    }
    const { token: appToken } = await createAppToken({
      workerUrl: running.url,
      token: adminToken,
      name: "stepwise-demo",
      rateLimit: { limit: 100_000, windowSeconds: 60 },
    });
    const builtBundle = bundle;
    return {
      emulator,
      worker: running,
      appToken,
      adminToken,
      currentKey: (provider) => keys.get(provider) ?? "",
      storedKeyFingerprints(provider) {
        const { secrets } = emulator.state.gateways;
        return config.gateways
          .filter((gateway) => gateway.byok?.providers.includes(provider))
          .flatMap((gateway) => {
            const name = `${gateway.id}_${provider}_default`;
            const stored = secrets
              .listStores()
              .map((store) => secrets.findByName(store.id, name))
              .find((secret) => secret !== undefined);
            return stored === undefined
              ? []
              : [{ secret: name, fingerprint: fingerprintOf(stored.value) }];
          });
      },
      async rotate(provider, label) {
        const next = (generation.get(provider) ?? 1) + 1;
        generation.set(provider, next);
        const key = keyFor(provider, next);
        // Like a real provider, the old key stays valid (unless revoked) while the Worker switches,
        // so calls in flight during the rotation never see a 401.
        const previous = keys.get(provider);
        emulator.mocks?.setKeys(provider, previous === undefined ? [key] : [previous, key]);
        keys.set(provider, key);
        return rotateKey({
          workerUrl: running.url,
          provider,
          key,
          token: adminToken,
          label,
          fetch,
        });
      },
      revoke(provider) {
        const key = keys.get(provider);
        if (key !== undefined) emulator.mocks?.revokeKey(provider, key);
      },
      async close() {
        await running.close();
        await emulator.close();
        await builtBundle.remove();
      },
    };
  } catch (error) {
    await worker?.close();
    await emulator.close();
    await bundle?.remove();
    throw error;
  }
}

/** The gateway's Secrets Store, read with the `cloudflare` SDK as on Cloudflare. */
async function storeIdOf(emulator: Emulator, gatewayId: string): Promise<string> {
  const client = new Cloudflare({ apiToken: emulator.gatewayToken, baseURL: emulator.restUrl });
  const gateway = await client.aiGateway.get(gatewayId, { account_id: emulator.accountId });
  return (gateway as { store_id?: string | null }).store_id ?? "";
}

/** The Worker's fingerprint of a key (`sha256:` and 12 hex digits). */
function fingerprintOf(key: string): string {
  return `sha256:${createHash("sha256").update(key).digest("hex").slice(0, 12)}`;
}
