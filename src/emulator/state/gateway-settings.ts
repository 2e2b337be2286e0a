/**
 * @module
 * A gateway's settings in the REST API's shape (snake_case, as the `cloudflare` SDK sends and
 * reads them), the zod schema that checks create/update bodies, and the conversion from a
 * Stepwise config gateway.
 */
import * as z from "zod";
import type { GatewayConfig } from "../../config/index.ts";

const backoffSchema = z.enum(["constant", "linear", "exponential"]);
const techniqueSchema = z.enum(["fixed", "sliding"]);
const filterSchema = z.object({ mode: z.literal("filter"), values: z.array(z.string()) });

/** One spend limit rule, as the REST API writes it. */
export const spendRuleSchema = z.looseObject({
  id: z.string().min(1).max(64).optional(),
  enabled: z.boolean().optional(),
  limit: z.number().min(0),
  limitType: z.literal("cost").default("cost"),
  window: z.int().min(1),
  technique: techniqueSchema.optional(),
  provider: filterSchema.optional(),
  model: filterSchema.optional(),
  metadata: z
    .record(z.string(), z.union([z.object({ mode: z.literal("partition") }), filterSchema]))
    .optional(),
});

export type SpendRule = z.infer<typeof spendRuleSchema>;

const nullableCount = z.int().min(0).nullable();

/** The body of `PUT .../gateways/{id}` (full replace); `POST` adds `id`. Unknown fields are kept. */
export const gatewayUpdateSchema = z.looseObject({
  cache_invalidate_on_update: z.boolean(),
  cache_ttl: nullableCount,
  collect_logs: z.boolean(),
  rate_limiting_interval: nullableCount,
  rate_limiting_limit: nullableCount,
  rate_limiting_technique: techniqueSchema.nullable().optional(),
  authentication: z.boolean().optional(),
  log_management: z.int().min(1).max(10_000_000).nullable().optional(),
  log_management_strategy: z.enum(["STOP_INSERTING", "DELETE_OLDEST"]).nullable().optional(),
  retry_max_attempts: z.int().min(1).max(5).nullable().optional(),
  retry_delay: z.int().min(0).max(60_000).nullable().optional(),
  retry_backoff: backoffSchema.nullable().optional(),
  spend_limits: z
    .object({ enabled: z.boolean().optional(), rules: z.array(spendRuleSchema).max(20).optional() })
    .nullable()
    .optional(),
  /** The Secrets Store holding the gateway's BYOK keys. */
  store_id: z.string().min(1).max(64).nullable().optional(),
  /** "Require provider credentials": no Unified Billing fallback for third-party calls. */
  byok_only: z.boolean().nullable().optional(),
});

export const gatewayCreateSchema = gatewayUpdateSchema.extend({
  id: z.string().regex(/^[a-z0-9-]{1,64}$/, {
    error: "gateway ids use lowercase letters, digits and hyphens, at most 64 characters",
  }),
});

export type GatewayUpdateBody = z.infer<typeof gatewayUpdateSchema>;

/** A gateway as the REST API returns it. */
export interface GatewaySettings extends Record<string, unknown> {
  id: string;
  created_at: string;
  modified_at: string;
  cache_invalidate_on_update: boolean;
  cache_ttl: number | null;
  collect_logs: boolean;
  rate_limiting_interval: number | null;
  rate_limiting_limit: number | null;
  rate_limiting_technique: "fixed" | "sliding";
  authentication: boolean;
  log_management: number | null;
  log_management_strategy: "STOP_INSERTING" | "DELETE_OLDEST";
  retry_max_attempts: number | null;
  retry_delay: number | null;
  retry_backoff: "constant" | "linear" | "exponential" | null;
  spend_limits: { enabled: boolean; rules: SpendRule[] } | null;
  /** The Secrets Store holding the gateway's BYOK keys; null without BYOK. */
  store_id: string | null;
  /** "Require provider credentials" (changelog 2026-09-14): a third-party call needs a key. */
  byok_only: boolean;
  is_default: boolean;
}

/** Settings from a validated create/update body; `id` and times come from the caller. */
export function settingsFromBody(
  id: string,
  body: GatewayUpdateBody,
  times: { created_at: string; modified_at: string },
  isDefault = false,
): GatewaySettings {
  return {
    ...body,
    id,
    ...times,
    cache_invalidate_on_update: body.cache_invalidate_on_update,
    cache_ttl: body.cache_ttl,
    collect_logs: body.collect_logs,
    rate_limiting_interval: body.rate_limiting_interval,
    rate_limiting_limit: body.rate_limiting_limit,
    rate_limiting_technique: body.rate_limiting_technique ?? "fixed",
    authentication: body.authentication ?? false,
    log_management: body.log_management ?? null,
    log_management_strategy: body.log_management_strategy ?? "STOP_INSERTING",
    retry_max_attempts: body.retry_max_attempts ?? null,
    retry_delay: body.retry_delay ?? null,
    retry_backoff: body.retry_backoff ?? null,
    spend_limits:
      body.spend_limits == null
        ? null
        : { enabled: body.spend_limits.enabled ?? true, rules: body.spend_limits.rules ?? [] },
    store_id: body.store_id ?? null,
    byok_only: body.byok_only ?? false,
    is_default: isDefault,
  };
}

/** A Stepwise config gateway in the REST shape. */
export function settingsFromConfig(gateway: GatewayConfig, time: string): GatewaySettings {
  const spendRules = (gateway.spendLimits ?? []).map(
    (rule, index): SpendRule => ({
      id: rule.id ?? `rule-${index}`,
      enabled: true,
      limit: rule.limit,
      limitType: "cost",
      window: rule.windowSeconds,
      technique: rule.technique,
      ...(Array.isArray(rule.providers)
        ? { provider: { mode: "filter" as const, values: rule.providers } }
        : {}),
      ...(Array.isArray(rule.models)
        ? { model: { mode: "filter" as const, values: rule.models } }
        : {}),
      ...(rule.metadata ? { metadata: metadataDimensions(rule.metadata) } : {}),
    }),
  );
  return {
    id: gateway.id,
    created_at: time,
    modified_at: time,
    cache_invalidate_on_update: gateway.cache.invalidateOnUpdate,
    cache_ttl: gateway.cache.ttl,
    collect_logs: gateway.logs.collect,
    rate_limiting_interval: gateway.rateLimit?.interval ?? null,
    rate_limiting_limit: gateway.rateLimit?.limit ?? null,
    rate_limiting_technique: gateway.rateLimit?.technique ?? "fixed",
    authentication: gateway.authentication,
    log_management: gateway.logs.limit ?? null,
    log_management_strategy: gateway.logs.strategy,
    retry_max_attempts: gateway.retries?.maxAttempts ?? null,
    retry_delay: gateway.retries?.delayMs ?? null,
    retry_backoff: gateway.retries?.backoff ?? null,
    spend_limits: spendRules.length > 0 ? { enabled: true, rules: spendRules } : null,
    store_id: null,
    byok_only: gateway.byokOnly ?? false,
    is_default: false,
  };
}

/** Settings of the `default` gateway Cloudflare creates on the first authenticated request. */
export function defaultGatewaySettings(time: string): GatewaySettings {
  return settingsFromBody(
    "default",
    {
      cache_invalidate_on_update: false,
      cache_ttl: 0,
      collect_logs: true,
      rate_limiting_interval: null,
      rate_limiting_limit: null,
      authentication: true,
    },
    { created_at: time, modified_at: time },
    true,
  );
}

/** A config rule's metadata dimensions in the REST shape: `split` is `partition`. */
function metadataDimensions(
  metadata: Readonly<Record<string, "split" | readonly string[]>>,
): NonNullable<SpendRule["metadata"]> {
  return Object.fromEntries(
    Object.entries(metadata).map(([key, value]) => [
      key,
      value === "split"
        ? { mode: "partition" as const }
        : { mode: "filter" as const, values: [...value] },
    ]),
  );
}
