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
 * - `byokOnly`, `guardrails`, `dlp` and `otels` are sent when the config sets them (`byokOnly`,
 *   `guardrails`, `dlp`, `otel`) and listed in `ignoreChanges` when it does not, so a value set
 *   in the dashboard is kept until the config takes the setting over.
 * - Fields Stepwise does not manage (Logpush, log classification, Stripe, ZDR, Workers AI billing
 *   mode) are listed in `ignoreChanges`, so a value set in the dashboard is neither reported as
 *   drift nor reset by the provider's defaults.
 * - What the provider has no field for (a Guardrails category it does not know, a spend limit
 *   split by provider or model) is refused before anything is sent (`unsendable-settings.ts`).
 */
import type * as cloudflare from "@pulumi/cloudflare";
import type {
  DlpConfig,
  GatewayConfig,
  GuardrailsConfig,
  OtelExporterConfig,
} from "../config/index.ts";

/** The `cloudflare.AiGateway` inputs that come from the config (no account, no store). */
export type GatewaySettings = Omit<cloudflare.AiGatewayArgs, "accountId" | "storeId">;

/** A name of an `AiGatewayArgs` input: what `ignoreChanges` may list for a gateway. */
export type GatewayInputName = keyof cloudflare.AiGatewayArgs;

/** Fields of `cloudflare.AiGateway` that Stepwise never sets; changes to them are ignored. */
export const unmanagedGatewayFields = [
  "logClassification",
  "logpush",
  "logpushPublicKey",
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
  if (gateway.byokOnly !== undefined) settings.byokOnly = gateway.byokOnly;
  if (gateway.guardrails) settings.guardrails = guardrails(gateway.guardrails);
  if (gateway.dlp) settings.dlp = dlp(gateway.dlp);
  if (gateway.otel) settings.otels = gateway.otel.map(otel);
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
  if (gateway.byokOnly === undefined) ignored.push("byokOnly");
  if (!gateway.guardrails) ignored.push("guardrails");
  if (!gateway.dlp) ignored.push("dlp");
  if (!gateway.otel) ignored.push("otels");
  return ignored;
}

/** `{ prompt: { s1: block } }` → `{ prompt: { s1: "BLOCK" }, response: {} }`, as the API names them. */
function guardrails(config: GuardrailsConfig): cloudflare.types.input.AiGatewayGuardrails {
  const phase = (categories: Readonly<Record<string, "flag" | "block">>) =>
    Object.fromEntries(
      Object.entries(categories).map(([category, action]) => [category, action.toUpperCase()]),
    );
  return { prompt: phase(config.prompt), response: phase(config.response) };
}

function dlp(config: DlpConfig): cloudflare.types.input.AiGatewayDlp {
  const input: cloudflare.types.input.AiGatewayDlp = {
    enabled: true,
    action: config.action.toUpperCase(),
    profiles: [...config.profiles],
  };
  if (config.policies) {
    input.policies = config.policies.map((policy) => ({
      id: policy.id,
      enabled: policy.enabled,
      action: policy.action.toUpperCase(),
      checks: [...policy.checks],
      profiles: [...policy.profiles],
    }));
  }
  return input;
}

function otel(exporter: OtelExporterConfig): cloudflare.types.input.AiGatewayOtel {
  return {
    url: exporter.url,
    headers: { ...exporter.headers },
    contentType: exporter.contentType,
    ...(exporter.authorization === undefined ? {} : { authorization: exporter.authorization }),
  };
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
      // `split` providers or models have no field here: the preflight refuses them.
      if (Array.isArray(rule.providers) && rule.providers.length > 0) {
        input.aiGatewayProvider = { mode: "filter", values: [...rule.providers] };
      }
      if (Array.isArray(rule.models) && rule.models.length > 0) {
        input.model = { mode: "filter", values: [...rule.models] };
      }
      if (rule.metadata) {
        input.metadata = Object.fromEntries(
          Object.entries(rule.metadata).map(([key, value]) => [
            key,
            value === "split" ? { mode: "partition" } : { mode: "filter", values: [...value] },
          ]),
        );
      }
      return input;
    }),
  };
}
