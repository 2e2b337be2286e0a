/**
 * @module
 * `buildStack`: a validated Stepwise config → every resource it declares, one component per
 * concern (`Gateway` per gateway, `KeyVault` for the companion Worker, `Byok` for keys kept in
 * Secrets Store), and the stack outputs the client and CI need. The Pulumi entry point
 * (`index.ts`) only reads the stack config and calls this; tests call it directly.
 *
 * Everything that can fail without the Cloudflare API (missing secrets, a missing Worker bundle,
 * an unreadable `wrangler.jsonc`, a config too large for a Worker variable, a dynamic route
 * Cloudflare would not run) is checked before the first resource is registered, so a bad input
 * never half-deploys. What `stepwise validate` reports as warnings is logged as Pulumi warnings.
 */
import * as pulumi from "@pulumi/pulumi";
import { type StepwiseConfig, workerViewText } from "../config/index.ts";
import { judgeConfig } from "../routes/config-verdict.ts";
import { Byok } from "./byok.ts";
import {
  byokProviders,
  deploysWorker,
  presentSecrets,
  type StackSecrets,
  verdictError,
} from "./config.ts";
import { Gateway } from "./gateway.ts";
import { KeyVault } from "./key-vault.ts";
import { defaultWorkerBundlePath, defaultWranglerConfigPath } from "./paths.ts";
import { readWorkerBundle } from "./worker-bundle.ts";
import { readWranglerSettings } from "./wrangler-config.ts";

export interface BuildStackOptions {
  /** The deploy's secrets, as Pulumi secrets. Default: none (then no Worker, no BYOK). */
  readonly secrets?: StackSecrets;
  /** Named in error messages. Default: `stack config`. */
  readonly source?: string;
  /** The Worker bundle. Default: `$STEPWISE_WORKER_BUNDLE`, else `<repo>/dist/worker-bundle/index.js`. */
  readonly workerBundlePath?: string;
  /** Default: `<repo>/wrangler.jsonc`. */
  readonly wranglerConfigPath?: string;
  /** An existing Secrets Store for BYOK keys. Default: a store named `stepwise` is created. */
  readonly secretsStoreId?: pulumi.Input<string>;
  /** Options for every top-level component (an explicit `provider`, transformations…). */
  readonly resourceOptions?: pulumi.ComponentResourceOptions;
}

/** What one gateway's clients need. */
export interface GatewayStackOutput {
  readonly universalUrl: pulumi.Output<string>;
  readonly compatUrl: pulumi.Output<string>;
  /** Route name → its id and the `dynamic/<route>` model name. */
  readonly routes: Readonly<Record<string, { id: pulumi.Output<string>; model: string }>>;
}

export interface StackOutputs {
  /** Gateway id → its URLs and routes. */
  readonly gateways: Readonly<Record<string, GatewayStackOutput>>;
  /** The companion Worker's URL (when the workers.dev subdomain is configured). */
  readonly workerUrl: pulumi.Output<string | undefined> | undefined;
  readonly kvNamespaceId: pulumi.Output<string> | undefined;
  /** The Secrets Store holding BYOK keys, when any gateway uses BYOK. */
  readonly secretsStoreId: pulumi.Output<string> | undefined;
}

export interface BuiltStack {
  readonly gateways: Readonly<Record<string, Gateway>>;
  readonly keyVault: KeyVault | undefined;
  readonly byok: Byok | undefined;
  readonly outputs: StackOutputs;
}

/**
 * Declares every resource of a config.
 * @throws {ConfigError} for a secret the deploy needs and does not have.
 * @throws {InfraError} for a missing Worker bundle or `wrangler.jsonc`, or an oversized config.
 */
export function buildStack(config: StepwiseConfig, options: BuildStackOptions = {}): BuiltStack {
  const secrets = options.secrets ?? {};
  const withWorker = deploysWorker(config);
  const byokKeys = config.gateways.flatMap((gateway) =>
    (gateway.byok?.providers ?? []).map((provider) => ({ gatewayId: gateway.id, provider })),
  );

  // Preflight: everything below can fail without any resource having been created.
  const source = options.source ?? "stack config";
  // The same decision `stepwise validate` makes (src/routes/config-verdict.ts).
  const verdict = judgeConfig(config, { secrets: presentSecrets(secrets) });
  if (verdict.errors.length > 0) throw verdictError(verdict, source);
  for (const warning of verdict.warnings) pulumi.log.warn(`${warning.path}: ${warning.message}`);
  const worker = withWorker
    ? {
        bundle: readWorkerBundle(options.workerBundlePath ?? defaultWorkerBundlePath()),
        wrangler: readWranglerSettings(options.wranglerConfigPath ?? defaultWranglerConfigPath),
        configJson: workerViewText(config, { source }),
      }
    : undefined;

  const resourceOptions = options.resourceOptions ?? {};
  const byok =
    byokKeys.length > 0
      ? new Byok(
          "byok",
          {
            accountId: config.accountId,
            keys: byokKeys.map((key) => ({
              ...key,
              value: secrets.byokKeys?.[key.provider] as pulumi.Input<string>,
              // The Worker rotates these: a deploy must not put the first key back.
              rotatedByWorker: withWorker && config.keys.providers.includes(key.provider),
            })),
            ...(options.secretsStoreId === undefined ? {} : { storeId: options.secretsStoreId }),
          },
          resourceOptions,
        )
      : undefined;

  const gateways: Record<string, Gateway> = {};
  for (const gateway of config.gateways) {
    gateways[gateway.id] = new Gateway(
      gateway.id,
      {
        accountId: config.accountId,
        gateway,
        ...(secrets.cloudflareApiToken === undefined
          ? {}
          : { apiToken: secrets.cloudflareApiToken }),
        byok:
          gateway.byok && byok
            ? {
                storeId: byok.storeId,
                secretIds: byok.secretIdsFor(gateway.id),
                apiToken: secrets.cloudflareApiToken,
              }
            : undefined,
      },
      resourceOptions,
    );
  }

  const keyVault = worker
    ? new KeyVault(
        "key-vault",
        {
          accountId: config.accountId,
          workerName: config.worker.name,
          bundlePath: worker.bundle.path,
          bundleSha256: worker.bundle.sha256,
          compatibilityDate: worker.wrangler.compatibilityDate,
          ...(worker.wrangler.compatibilityFlags.length > 0
            ? { compatibilityFlags: [...worker.wrangler.compatibilityFlags] }
            : {}),
          cron: config.worker.cron,
          rotateToken: secrets.rotateToken as pulumi.Input<string>,
          ...(secrets.gatewayToken === undefined ? {} : { gatewayToken: secrets.gatewayToken }),
          gatewayUrl: config.worker.gatewayUrl,
          configJson: worker.configJson,
          eventsDataset: worker.wrangler.eventsDataset ?? "stepwise_events",
          dailySummaryDataset: worker.wrangler.dailySummaryDataset ?? "stepwise_daily",
          ...(secrets.analyticsApiToken === undefined
            ? {}
            : { analyticsApiToken: secrets.analyticsApiToken }),
          // Rotations through the Worker overwrite the BYOK secrets of the providers it holds.
          ...(byok === undefined ? {} : { byokStoreId: byok.storeId }),
          ...(secrets.secretsStoreToken === undefined
            ? {}
            : { secretsStoreToken: secrets.secretsStoreToken }),
          durableObjects: worker.wrangler.durableObjects,
          migrations: worker.wrangler.migrations,
          ...(config.worker.workersDevSubdomain === undefined
            ? {}
            : { workersDevSubdomain: config.worker.workersDevSubdomain }),
        },
        resourceOptions,
      )
    : undefined;

  return {
    gateways,
    keyVault,
    byok,
    outputs: {
      gateways: Object.fromEntries(
        Object.entries(gateways).map(([id, gateway]) => [
          id,
          {
            universalUrl: gateway.universalUrl,
            compatUrl: gateway.compatUrl,
            routes: gateway.routeOutputs,
          },
        ]),
      ),
      workerUrl: keyVault?.workerUrl,
      kvNamespaceId: keyVault?.namespaceId,
      secretsStoreId: byok?.storeId,
    },
  };
}

export { byokProviders, deploysWorker };
