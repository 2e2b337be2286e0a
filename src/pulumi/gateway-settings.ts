/**
 * @module
 * A gateway's config → the inputs of `cloudflare.AiGateway`, and the list of gateway fields
 * Stepwise leaves alone. Pure: no Pulumi resources, so the drift rules can be read and tested in
 * one place.
 *
 * Drift rules (a second `pulumi up`, or `pulumi up --refresh`, with the same config must change
 * nothing):
 * - Every field Stepwise manages is sent with an explicit value, even when the feature is off.
 *   The API fills in values for fields it is not sent, and `cache_ttl`, `rate_limiting_interval`
 *   and `rate_limiting_limit` are required but nullable: sending `0` ("off") every time means the
 *   value read back is the value sent, instead of `null` one run and `0` the next.
 * - `rate_limiting_technique` is optional and not computed in the provider schema, so a value the
 *   API fills in would show as a diff after a refresh: it is always sent (`fixed` when off).
 * - Spend limit rules default their `id` to one fixed string in the provider (`ebb4dba2`), so two
 *   rules without ids would collide: every rule gets an id (its own, or `rule-<index>`), and
 *   `enabled`, `limitType` and `technique` are sent explicitly.
 * - Fields Stepwise does not manage (DLP, guardrails, OpenTelemetry, Logpush, Stripe, ZDR, Workers
 *   AI billing mode, BYOK-only) are listed in `ignoreChanges`, so a value set in the dashboard is
 *   neither reported as drift nor reset by the provider's defaults.
 */
import type * as cloudflare from "@pulumi/cloudflare";
import type { GatewayConfig } from "../config/index.ts";

/** The `cloudflare.AiGateway` inputs that come from the config (no account, no store). */
export type GatewaySettings = Omit<cloudflare.AiGatewayArgs, "accountId" | "storeId">;

/** A name of an `AiGatewayArgs` input: what `ignoreChanges` may list for a gateway. */
export type GatewayInputName = keyof cloudflare.AiGatewayArgs;

/** Fields of `cloudflare.AiGateway` that Stepwise never sets; changes to them are ignored. */
export const unmanagedGatewayFields = [
  "byokOnly",
  "dlp",
  "guardrails",
  "logClassification",
  "logpush",
  "logpushPublicKey",
  "otels",
  "stripe",
  "workersAiBillingMode",
  "zdr",
] as const satisfies readonly GatewayInputName[];

/** Every `cloudflare.AiGateway` input that Stepwise sets from a gateway's config. */
export function gatewaySettings(gateway: GatewayConfig): GatewaySettings {
  const settings: GatewaySettings = {
    aiGatewayId: gateway.id,
    authentication: gateway.authentication,
    cacheTtl: gateway.cache.ttl,
    cacheInvalidateOnUpdate: gateway.cache.invalidateOnUpdate,
    rateLimitingLimit: gateway.rateLimit?.limit ?? 0,
    rateLimitingInterval: gateway.rateLimit?.interval ?? 0,
    rateLimitingTechnique: gateway.rateLimit?.technique ?? "fixed",
    collectLogs: gateway.logs.collect,
    logManagementStrategy: gateway.logs.strategy,
    spendLimits: spendLimits(gateway),
  };
  if (gateway.logs.limit !== undefined) settings.logManagement = gateway.logs.limit;
  if (gateway.retries) {
    settings.retryMaxAttempts = gateway.retries.maxAttempts;
    settings.retryDelay = gateway.retries.delayMs;
    settings.retryBackoff = gateway.retries.backoff;
  }
  return settings;
}

/**
 * The fields to pass as `ignoreChanges`: the unmanaged ones, plus the optional features this
 * gateway's config leaves unset. Those are the ones the API fills in with its own defaults
 * (retries, the log limit, the Secrets Store id); ignoring them keeps a refresh from turning the
 * API's value into a diff. To turn gateway retries off again after setting them, set
 * `retries.maxAttempts: 1` rather than deleting the block.
 */
export function ignoredGatewayFields(gateway: GatewayConfig): GatewayInputName[] {
  const ignored: GatewayInputName[] = [...unmanagedGatewayFields];
  if (!gateway.retries) ignored.push("retryMaxAttempts", "retryDelay", "retryBackoff");
  if (gateway.logs.limit === undefined) ignored.push("logManagement");
  if (!gateway.byok) ignored.push("storeId");
  return ignored;
}

function spendLimits(gateway: GatewayConfig): cloudflare.types.input.AiGatewaySpendLimits {
  const rules = gateway.spendLimits ?? [];
  // No rules: send `enabled: false` so that removing the rules from the config turns spend
  // limits off, and leave the (computed) rule list to the API.
  if (rules.length === 0) return { enabled: false };
  return {
    enabled: true,
    rules: rules.map((rule, index) => {
      const input: cloudflare.types.input.AiGatewaySpendLimitsRule = {
        id: rule.id ?? `rule-${index}`,
        enabled: true,
        limit: rule.limit,
        limitType: "cost",
        window: rule.windowSeconds,
        technique: rule.technique,
      };
      if (rule.providers?.length) {
        input.aiGatewayProvider = { mode: "filter", values: [...rule.providers] };
      }
      if (rule.models?.length) input.model = { mode: "filter", values: [...rule.models] };
      return input;
    }),
  };
}
