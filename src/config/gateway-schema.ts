/**
 * @module
 * The schema of a gateway: authentication, cache, rate limit, logs, retries, spend limits, BYOK
 * providers and its routes. Part of the one config schema (`schema.ts`).
 */
import * as z from "zod";
import { credentialPathSchema } from "./credential-paths.ts";
import { backoffSchema, cacheTtlSchema, providerSlugSchema } from "./field-schemas.ts";
import { dlpSchema, guardrailsSchema, otelExporterSchema } from "./gateway-features-schema.ts";
import { routeNameSchema, routeSchema } from "./route-schema.ts";

export const spendLimitSchema = z.strictObject({
  id: z.string().min(1).max(64).optional(),
  /** Budget in USD for the window. */
  limit: z.number().min(0),
  windowSeconds: z.int().min(60, { error: "windowSeconds must be at least 60" }),
  technique: z.enum(["fixed", "sliding"]).default("sliding"),
  /** Only these providers' calls count, or `split`: one budget per provider. */
  providers: z.union([z.array(providerSlugSchema), z.literal("split")]).optional(),
  /** Only these models' calls count, or `split`: one budget per model. */
  models: z.union([z.array(z.string().min(1)), z.literal("split")]).optional(),
  /**
   * Custom metadata dimensions (features/spend-limits.mdx, "Limit by metadata"): per key,
   * `split` ("Each distinct value gets its own independent budget bucket") or the values the
   * rule applies to ("The rule applies only when the dimension equals a specific value").
   */
  metadata: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, {
        error:
          "a spend limit's metadata key is the cf-aig-metadata key, e.g. user_id or cf.user_id",
      }),
      z.union([z.literal("split"), z.array(z.string().min(1)).min(1)], {
        error: 'a metadata dimension is "split" or the list of values the rule applies to',
      }),
    )
    .optional(),
});

export const gatewaySchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]{1,64}$/, {
    error: "gateway ids use lowercase letters, digits and hyphens, at most 64 characters",
  }),
  authentication: z.boolean().default(false),
  cache: z
    .strictObject({
      ttl: cacheTtlSchema.default(0),
      invalidateOnUpdate: z.boolean().default(false),
      /**
       * One cache for every app behind the companion Worker. Off by default: the Worker keys each
       * app's cached answers by the app, so no app reads another's (docs/worker.md says what
       * sharing reveals).
       */
      shareBetweenApps: z.boolean().default(false),
    })
    .prefault({}),
  rateLimit: z
    .strictObject({
      limit: z
        .int()
        .min(1, { error: "rateLimit.limit must be at least 1; remove rateLimit to turn it off" }),
      interval: z
        .int()
        .min(1, { error: "rateLimit.interval is in seconds and must be at least 1" }),
      technique: z
        .enum(["fixed", "sliding"], { error: 'technique must be "fixed" or "sliding"' })
        .default("fixed"),
    })
    .optional(),
  logs: z
    .strictObject({
      collect: z.boolean().default(true),
      limit: z
        .int()
        .min(10_000, { error: "logs.limit must be between 10000 and 10000000" })
        .max(10_000_000, { error: "logs.limit must be between 10000 and 10000000" })
        .optional(),
      strategy: z
        .enum(["STOP_INSERTING", "DELETE_OLDEST"], {
          error: 'strategy must be "STOP_INSERTING" or "DELETE_OLDEST"',
        })
        .default("STOP_INSERTING"),
    })
    .prefault({}),
  retries: z
    .strictObject({
      maxAttempts: z.int().min(1).max(5, { error: "retries.maxAttempts must be 1 to 5" }),
      delayMs: z
        .int()
        .min(0)
        .max(5_000, { error: "retries.delayMs must be 0 to 5000 ms" })
        .default(0),
      backoff: backoffSchema.default("constant"),
    })
    .optional(),
  spendLimits: z
    .array(spendLimitSchema)
    .max(20, { error: "at most 20 spend limit rules per gateway" })
    .optional(),
  /**
   * Providers whose keys are stored in the gateway (BYOK: a Secrets Store secret
   * `{gateway}_{provider}_default` and a provider config), which dynamic routes need. The keys
   * themselves are Pulumi secrets (`byokKeys.<provider>`).
   */
  byok: z
    .strictObject({
      providers: z
        .array(providerSlugSchema)
        .min(1, { error: "byok.providers lists at least one provider; remove byok otherwise" }),
    })
    .optional(),
  /**
   * How keys reach this gateway's providers, unless `providerCredentials` or `byok.providers`
   * says otherwise: `worker` (the companion Worker puts them on the request), `byok` (stored in
   * the gateway), `request` (the app sends them) or `unified-billing` (Cloudflare's, paid from
   * credits). Unset: each provider in `byok.providers` uses its stored key, every other the
   * Worker's (`keys.providers`). See `credential-paths.ts`.
   */
  credentials: credentialPathSchema.optional(),
  /** One provider's credential path on this gateway, e.g. `{ anthropic: unified-billing }`. */
  providerCredentials: z.record(providerSlugSchema, credentialPathSchema).optional(),
  /**
   * "Require provider credentials" (`byok_only`, changelog 2026-09-14): a third-party call
   * without a key on the request or in the gateway gets a 400 instead of Unified Billing.
   */
  byokOnly: z.boolean().optional(),
  /** Guardrails: per category, flag or block, on prompts and responses. Unset: left alone. */
  guardrails: guardrailsSchema.optional(),
  /** Data Loss Prevention profiles and policies. Unset: left alone. */
  dlp: dlpSchema.optional(),
  /** OpenTelemetry exporters of the gateway's trace spans. Unset: left alone. */
  otel: z.array(otelExporterSchema).optional(),
  routes: z
    .record(routeNameSchema, routeSchema)
    .refine((routes) => Object.keys(routes).length > 0, {
      error: "a gateway needs at least one route",
    }),
});

export type GatewayConfig = z.infer<typeof gatewaySchema>;
export type SpendLimitConfig = z.infer<typeof spendLimitSchema>;
