/**
 * @module
 * `KeyVault`: the companion Worker that holds, rotates and injects provider keys — uploaded from
 * wrangler's dry-run bundle with its Durable Object classes (`KeyLedger`, the single writer;
 * `AppLimiter`, per-app counters) and their migrations, bound to the Workers KV namespace it
 * writes through to (created here), its secrets, the config and an Analytics Engine dataset —
 * with its cron trigger (and the daily summary's dataset and token) and its workers.dev route. With `secretsStoreToken` and `byokStoreId`,
 * its rotations also overwrite the BYOK gateways' stored keys.
 */
import path from "node:path";
import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import { defaultWorkerBundlePath } from "./paths.ts";
import { workerUrl } from "./urls.ts";
import { workerBindings, workerMigrations } from "./worker-bindings.ts";
import { readWorkerBundle } from "./worker-bundle.ts";
import { workerSchedules } from "./worker-schedules.ts";

export interface KeyVaultArgs {
  /** Cloudflare account id. Required. */
  readonly accountId: pulumi.Input<string>;
  /** Worker script name. Default: `stepwise-keys`. */
  readonly workerName?: pulumi.Input<string>;
  /** KV namespace title. Default: `<workerName>-KEYS` (wrangler's naming). */
  readonly namespaceTitle?: pulumi.Input<string>;
  /**
   * Absolute path of the bundle's main module, from
   * `npx wrangler deploy --dry-run --outdir dist/worker-bundle`. Default: `$STEPWISE_WORKER_BUNDLE`, else `<repo>/dist/worker-bundle/index.js`.
   */
  readonly bundlePath?: pulumi.Input<string>;
  /** sha256 of the bundle. Default: hashed from `bundlePath`, so edits re-upload the Worker. */
  readonly bundleSha256?: pulumi.Input<string>;
  /** Workers runtime date, as in `wrangler.jsonc`. Required. */
  readonly compatibilityDate: pulumi.Input<string>;
  /** Runtime flags, as in `wrangler.jsonc`. Default: none. */
  readonly compatibilityFlags?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Cron schedule of the key sweep and health probe. Default: every 15 minutes. With
   * `analyticsApiToken`, `0 1 * * *` is added unless it already fires at 01:00 UTC every day.
   */
  readonly cron?: string;
  /** Admin token of the rotation API; keep it a Pulumi secret. Required. */
  readonly rotateToken: pulumi.Input<string>;
  /** Gateway token the Worker sends as `cf-aig-authorization`. Default: not bound. */
  readonly gatewayToken?: pulumi.Input<string>;
  /** Where the Worker forwards calls. Default: `https://gateway.ai.cloudflare.com`. */
  readonly gatewayUrl?: pulumi.Input<string>;
  /** `STEPWISE_CONFIG`: the Worker's view of the config (`workerViewText`). Required. */
  readonly configJson: pulumi.Input<string>;
  /** Analytics Engine dataset bound as `EVENTS`. Default: `stepwise_events`. */
  readonly eventsDataset?: pulumi.Input<string>;
  /** Analytics Engine dataset bound as `DAILY_SUMMARY`. Default: `stepwise_daily`. */
  readonly dailySummaryDataset?: pulumi.Input<string>;
  /**
   * API token with "Account Analytics Read" and nothing else, bound as `ANALYTICS_API_TOKEN`: the
   * cron's 01:00 UTC run writes yesterday's summary per route to `DAILY_SUMMARY` with it. Keep it
   * a Pulumi secret. Default: not bound (no daily summary).
   */
  readonly analyticsApiToken?: pulumi.Input<string>;
  /**
   * API token with the account's "Secrets Store Edit" permission and nothing else, bound as
   * `SECRETS_STORE_TOKEN`: rotations overwrite the gateways' BYOK secrets with it. Keep it a
   * Pulumi secret. Default: not bound (BYOK secrets then keep the value Pulumi gave them).
   */
  readonly secretsStoreToken?: pulumi.Input<string>;
  /** The Secrets Store of the BYOK gateways (their `storeId`), bound as `BYOK_STORE_ID`. Default: empty. */
  readonly byokStoreId?: pulumi.Input<string>;
  /** Cloudflare's API base, bound as `CLOUDFLARE_API_URL`. Default: `https://api.cloudflare.com/client/v4`. */
  readonly cloudflareApiUrl?: pulumi.Input<string>;
  /** The account's workers.dev subdomain, to report the Worker's URL. Default: unknown. */
  readonly workersDevSubdomain?: pulumi.Input<string>;
  /**
   * Durable Object bindings, as `durable_objects.bindings` in `wrangler.jsonc`. Default: the
   * Worker's own, `KEY_LEDGER` → `KeyLedger`, `APP_LIMITER` → `AppLimiter` and
   * `PROVIDER_MONITOR` → `ProviderMonitor`.
   */
  readonly durableObjects?: readonly { readonly name: string; readonly className: string }[];
  /** Durable Object migrations, as `migrations` in `wrangler.jsonc`. Default: the Worker's own. */
  readonly migrations?: readonly {
    readonly tag: string;
    readonly newSqliteClasses: readonly string[];
  }[];
  /**
   * The migration tag the deployed script already has, so only later migrations are sent (the
   * API refuses a tag it has applied). Default: none, as for a first deploy.
   */
  readonly appliedMigrationTag?: string;
}

/** The Worker's Durable Objects and their migrations, as in `wrangler.jsonc`. */
export const defaultDurableObjects = [
  { name: "APP_LIMITER", className: "AppLimiter" },
  { name: "KEY_LEDGER", className: "KeyLedger" },
  { name: "PROVIDER_MONITOR", className: "ProviderMonitor" },
] as const;
export const defaultMigrations = [
  { tag: "v1", newSqliteClasses: ["KeyLedger", "AppLimiter"] },
  { tag: "v2", newSqliteClasses: ["ProviderMonitor"] },
] as const;

export class KeyVault extends pulumi.ComponentResource {
  readonly namespace: cloudflare.WorkersKvNamespace;
  readonly script: cloudflare.WorkersScript;
  readonly cronTrigger: cloudflare.WorkersCronTrigger;
  readonly subdomain: cloudflare.WorkersScriptSubdomain;
  /** The KV namespace id. */
  readonly namespaceId: pulumi.Output<string>;
  /** `https://<worker>.<subdomain>.workers.dev`, when the subdomain is configured. */
  readonly workerUrl: pulumi.Output<string | undefined>;

  constructor(name: string, args: KeyVaultArgs, opts?: pulumi.ComponentResourceOptions) {
    super("stepwise:index:KeyVault", name, {}, opts);
    const workerName = args.workerName ?? "stepwise-keys";
    const bundlePath = pulumi.output(args.bundlePath ?? defaultWorkerBundlePath());

    this.namespace = new cloudflare.WorkersKvNamespace(
      `${name}-kv`,
      {
        accountId: args.accountId,
        title: args.namespaceTitle ?? pulumi.interpolate`${workerName}-KEYS`,
      },
      { parent: this },
    );

    const scriptArgs: cloudflare.WorkersScriptArgs = {
      accountId: args.accountId,
      scriptName: workerName,
      // The bundle is uploaded from its file, identified by its hash: the state holds a hash,
      // not the ~1 MB script, and a change of bytes (only) uploads a new version.
      contentFile: bundlePath,
      contentSha256: args.bundleSha256 ?? bundlePath.apply((file) => readWorkerBundle(file).sha256),
      mainModule: bundlePath.apply((file) => path.basename(file)),
      compatibilityDate: args.compatibilityDate,
      bindings: workerBindings({
        namespaceId: this.namespace.id,
        rotateToken: args.rotateToken,
        gatewayToken: args.gatewayToken,
        gatewayUrl: args.gatewayUrl ?? "https://gateway.ai.cloudflare.com",
        configJson: args.configJson,
        eventsDataset: args.eventsDataset ?? "stepwise_events",
        dailySummaryDataset: args.dailySummaryDataset ?? "stepwise_daily",
        analyticsApiToken: args.analyticsApiToken,
        secretsStoreToken: args.secretsStoreToken,
        byokStoreId: args.byokStoreId ?? "",
        cloudflareApiUrl: args.cloudflareApiUrl ?? "https://api.cloudflare.com/client/v4",
        durableObjects: args.durableObjects ?? defaultDurableObjects,
      }),
      ...withMigrations(args),
    };
    if (args.compatibilityFlags !== undefined)
      scriptArgs.compatibilityFlags = args.compatibilityFlags;
    this.script = new cloudflare.WorkersScript(`${name}-worker`, scriptArgs, { parent: this });

    this.cronTrigger = new cloudflare.WorkersCronTrigger(
      `${name}-cron`,
      {
        accountId: args.accountId,
        scriptName: this.script.scriptName,
        schedules: workerSchedules(
          args.cron ?? "*/15 * * * *",
          args.analyticsApiToken !== undefined,
        ).map((cron) => ({ cron })),
      },
      { parent: this },
    );

    this.subdomain = new cloudflare.WorkersScriptSubdomain(
      `${name}-subdomain`,
      {
        accountId: args.accountId,
        scriptName: this.script.scriptName,
        enabled: true,
        // Sent explicitly so the API's default never reads back as a change.
        previewsEnabled: false,
      },
      { parent: this },
    );

    this.namespaceId = this.namespace.id;
    this.workerUrl = workerUrl(this.script.scriptName, args.workersDevSubdomain);
    this.registerOutputs({
      namespaceId: this.namespaceId,
      scriptName: this.script.scriptName,
      workerUrl: this.workerUrl,
    });
  }
}

function withMigrations(args: KeyVaultArgs) {
  const migrations = workerMigrations(
    args.migrations ?? defaultMigrations,
    args.appliedMigrationTag,
  );
  return migrations === undefined ? {} : { migrations };
}
