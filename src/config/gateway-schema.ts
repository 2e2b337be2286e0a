/**
 * @module
 * The schema of a gateway: authentication, cache, rate limit, logs, retries, spend limits, BYOK
 * providers and its routes. Part of the one config schema (`schema.ts`).
 */
import * as z from "zod";
import {
  backoffSchema,
  byokSchema,
  cacheTtlSchema,
  gatewayIdSchema,
  providerSlugSchema,
} from "./field-schemas.ts";
import { routeNameSchema, routeSchema } from "./route-schema.ts";

export const spendLimitSchema = z.strictObject({
  id: z.string().min(1).max(64).optional(),
  /** Budget in USD for the window. */
  limit: z.number().min(0),
  windowSeconds: z.int().min(60, { error: "windowSeconds must be at least 60" }),
  technique: z.enum(["fixed", "sliding"]).default("sliding"),
  providers: z.array(providerSlugSchema).optional(),
  models: z.array(z.string().min(1)).optional(),
});

export const gatewaySchema = z.strictObject({
  id: gatewayIdSchema,
  authentication: z.boolean().default(false),
  cache: z
    .strictObject({
      ttl: cacheTtlSchema.default(0),
      invalidateOnUpdate: z.boolean().default(false),
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
  /** The providers whose keys the gateway stores (see `byokSchema`). */
  byok: byokSchema,
  routes: z
    .record(routeNameSchema, routeSchema)
    .refine((routes) => Object.keys(routes).length > 0, {
      error: "a gateway needs at least one route",
    }),
});

export type GatewayConfig = z.infer<typeof gatewaySchema>;
export type SpendLimitConfig = z.infer<typeof spendLimitSchema>;
