/**
 * @module
 * The companion Worker's bindings, by the names its code reads (`WorkerEnv` in
 * `src/worker/bindings.ts`, `Env` in `worker-configuration.d.ts`, `wrangler.jsonc`), and its
 * Durable Object migrations. A contract test keeps them in step and checks each binding against
 * `@pulumi/cloudflare`'s declaration of `WorkersScriptBinding`. Pure: builds
 * `cloudflare.WorkersScript` inputs.
 */
import type * as cloudflare from "@pulumi/cloudflare";
import type * as pulumi from "@pulumi/pulumi";
import { InfraError } from "./errors.ts";

/** Binding names: the contract with the Worker code. */
export const workerBindingNames = {
  /** KV namespace: the edge read path (current keys, app tokens), probe results. */
  keys: "KEYS",
  /** Durable Object namespace of `KeyLedger`, the single writer of keys and app tokens. */
  keyLedger: "KEY_LEDGER",
  /** Durable Object namespace of `AppLimiter`, one exact request counter per app. */
  appLimiter: "APP_LIMITER",
  /** Durable Object namespace of `ProviderMonitor`: per provider, its pool's usage and health. */
  providerMonitor: "PROVIDER_MONITOR",
  /** Admin token of the rotation API (secret). */
  rotateToken: "ROTATE_TOKEN",
  /** Token sent upstream as `cf-aig-authorization` (secret, optional). */
  gatewayToken: "GATEWAY_TOKEN",
  /** Base URL the Worker forwards gateway calls to. */
  gatewayUrl: "GATEWAY_URL",
  /** The Worker's view of the Stepwise config (`workerViewText`): only what it reads, no secret. */
  config: "STEPWISE_CONFIG",
  /** Analytics Engine dataset, one data point per proxied call. */
  events: "EVENTS",
  /** The name of the `EVENTS` dataset, which the daily summary queries through the SQL API. */
  eventsDataset: "EVENTS_DATASET",
  /** Analytics Engine dataset of the cron's daily summary, one point per route and day. */
  dailySummary: "DAILY_SUMMARY",
  /** API token with Account Analytics Read only, for the daily summary's query (secret). */
  analyticsApiToken: "ANALYTICS_API_TOKEN",
  /** API token allowed to edit Secrets Store only: rotations overwrite BYOK secrets (secret). */
  secretsStoreToken: "SECRETS_STORE_TOKEN",
  /** The Secrets Store of the BYOK gateways (their `store_id`). */
  byokStoreId: "BYOK_STORE_ID",
  /** Cloudflare's API base, for the BYOK secrets. */
  cloudflareApiUrl: "CLOUDFLARE_API_URL",
} as const;

export interface WorkerBindingInputs {
  readonly namespaceId: pulumi.Input<string>;
  readonly rotateToken: pulumi.Input<string>;
  /** Bound only when set. */
  readonly gatewayToken?: pulumi.Input<string> | undefined;
  readonly gatewayUrl: pulumi.Input<string>;
  /** `STEPWISE_CONFIG`: the Worker's view of the config, from `workerViewText`. */
  readonly configJson: pulumi.Input<string>;
  readonly eventsDataset: pulumi.Input<string>;
  /** Dataset bound as `DAILY_SUMMARY`; bound only when set. */
  readonly dailySummaryDataset?: pulumi.Input<string> | undefined;
  /** Bound only when set (the daily summary is off without it). */
  readonly analyticsApiToken?: pulumi.Input<string> | undefined;
  /** Bound only when set. */
  readonly secretsStoreToken?: pulumi.Input<string> | undefined;
  /** Empty when no gateway keeps keys in Secrets Store. */
  readonly byokStoreId: pulumi.Input<string>;
  readonly cloudflareApiUrl: pulumi.Input<string>;
  /** Durable Object bindings (from `wrangler.jsonc`), by binding name. */
  readonly durableObjects: readonly { readonly name: string; readonly className: string }[];
}

/**
 * The Worker's bindings, sorted by name: the API lists bindings in its own order, and a stable
 * order keeps a refresh from reporting a reordering as a change.
 */
export function workerBindings(
  inputs: WorkerBindingInputs,
): cloudflare.types.input.WorkersScriptBinding[] {
  const bindings: cloudflare.types.input.WorkersScriptBinding[] = [
    { name: workerBindingNames.keys, type: "kv_namespace", namespaceId: inputs.namespaceId },
    { name: workerBindingNames.rotateToken, type: "secret_text", text: inputs.rotateToken },
    { name: workerBindingNames.gatewayUrl, type: "plain_text", text: inputs.gatewayUrl },
    { name: workerBindingNames.config, type: "plain_text", text: inputs.configJson },
    { name: workerBindingNames.events, type: "analytics_engine", dataset: inputs.eventsDataset },
    { name: workerBindingNames.eventsDataset, type: "plain_text", text: inputs.eventsDataset },
    { name: workerBindingNames.byokStoreId, type: "plain_text", text: inputs.byokStoreId },
    {
      name: workerBindingNames.cloudflareApiUrl,
      type: "plain_text",
      text: inputs.cloudflareApiUrl,
    },
    ...inputs.durableObjects.map((binding) => ({
      name: binding.name,
      type: "durable_object_namespace",
      className: binding.className,
    })),
  ];
  if (inputs.gatewayToken !== undefined) {
    bindings.push({
      name: workerBindingNames.gatewayToken,
      type: "secret_text",
      text: inputs.gatewayToken,
    });
  }
  if (inputs.dailySummaryDataset !== undefined) {
    bindings.push({
      name: workerBindingNames.dailySummary,
      type: "analytics_engine",
      dataset: inputs.dailySummaryDataset,
    });
  }
  if (inputs.analyticsApiToken !== undefined) {
    bindings.push({
      name: workerBindingNames.analyticsApiToken,
      type: "secret_text",
      text: inputs.analyticsApiToken,
    });
  }
  if (inputs.secretsStoreToken !== undefined) {
    bindings.push({
      name: workerBindingNames.secretsStoreToken,
      type: "secret_text",
      text: inputs.secretsStoreToken,
    });
  }
  return bindings.sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

/**
 * The `migrations` input of the Worker script: the migrations of `wrangler.jsonc` after
 * `appliedTag` (all of them for a first deploy), with `oldTag` set so the API checks that the
 * deployed script is where this deploy expects it. Undefined when nothing is left to apply.
 */
export function workerMigrations(
  migrations: readonly { readonly tag: string; readonly newSqliteClasses: readonly string[] }[],
  appliedTag?: string,
): cloudflare.types.input.WorkersScriptMigrations | undefined {
  const applied = appliedTag === undefined ? -1 : migrations.findIndex((m) => m.tag === appliedTag);
  if (appliedTag !== undefined && applied === -1) {
    throw new InfraError({
      code: "wrangler_config_unreadable",
      message: `the deployed Worker is at Durable Object migration "${appliedTag}", which wrangler.jsonc does not list: add it back to "migrations" (tags are never removed)`,
    });
  }
  const pending = migrations.slice(applied + 1);
  const last = pending.at(-1);
  if (last === undefined) return undefined;
  return {
    ...(appliedTag === undefined ? {} : { oldTag: appliedTag }),
    newTag: last.tag,
    steps: pending.map((migration) => ({ newSqliteClasses: [...migration.newSqliteClasses] })),
  };
}
