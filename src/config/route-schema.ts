/**
 * @module
 * The schema of a route: its steps (provider, model, timeouts, retries, cache), its policy's
 * chains, deadline, dynamic-route switch, stream-break handling and hedging. Part of the one
 * config schema (`schema.ts`).
 */
import * as z from "zod";
import { backoffSchema, cacheTtlSchema, providerSlugSchema } from "./field-schemas.ts";
import { chainsSchema, policySchema } from "./policy-schema.ts";

export const stepSchema = z.strictObject({
  provider: providerSlugSchema,
  model: z.string().min(1, { error: "model is required, e.g. gpt-4o-mini" }),
  /** Time to first byte before the gateway moves on, in ms. */
  timeoutMs: z
    .int()
    .min(100, { error: "timeoutMs must be at least 100 ms" })
    .max(600_000)
    .optional(),
  /** Retries within this step before falling back (attempts = retries + 1, at most 5). */
  retries: z
    .int()
    .min(0)
    .max(4, { error: "retries must be 0 to 4 (at most 5 attempts per step)" })
    .optional(),
  retryDelayMs: z
    .int()
    .min(0)
    .max(5_000, { error: "retryDelayMs must be 0 to 5000 ms" })
    .optional(),
  backoff: backoffSchema.optional(),
  /** Per-step `cf-aig-cache-ttl`; 0 turns caching off for this step. */
  cacheTtl: cacheTtlSchema.optional(),
  /**
   * Longest wait for a stream's first text once its headers came, in ms. Cloudflare has no header
   * for it, so the client enforces it (and moves on to the next step).
   */
  firstTokenTimeoutMs: z
    .int()
    .min(100, { error: "firstTokenTimeoutMs must be at least 100 ms" })
    .max(600_000)
    .optional(),
  /**
   * Longest silence between a stream's events once text flows, in ms. Cloudflare has no header
   * for it, so the client enforces it (and moves on to the next step).
   */
  idleTimeoutMs: z
    .int()
    .min(100, { error: "idleTimeoutMs must be at least 100 ms" })
    .max(600_000)
    .optional(),
});

export const hedgeSchema = z.strictObject(
  {
    afterMs: z
      .int({ error: "hedge.afterMs is a whole number of ms, e.g. 2000" })
      .min(50, {
        error: "hedge.afterMs must be at least 50 ms (a hedge sooner than that doubles every call)",
      })
      .max(600_000, { error: "hedge.afterMs must be at most 600000 ms" }),
    maxExtraCostPerHour: z
      .number({
        error:
          "hedge.maxExtraCostPerHour is required: the USD that dropped hedge answers of this route may cost per hour, e.g. 0.5",
      })
      .min(0, { error: "hedge.maxExtraCostPerHour must be 0 or more (USD per hour)" }),
  },
  {
    error:
      "hedge is { afterMs, maxExtraCostPerHour }, e.g. { afterMs: 2000, maxExtraCostPerHour: 0.5 }",
  },
);

export const routeObjectSchema = z.strictObject({
  /** The route's chain; with a policy, the chain named `default` (what no rule claims). */
  steps: z.array(stepSchema).min(1, { error: "a route needs at least one step" }),
  /** More chains a policy can pick, by name (see `policy-schema.ts`). */
  chains: chainsSchema(stepSchema).optional(),
  /** Ordered rules picking a chain per request from its metadata; first match wins. */
  policy: policySchema.optional(),
  /** Overall deadline for a call on this route, in ms; each step's timeout must fit inside it. */
  deadlineMs: z.int().min(100).max(3_600_000).optional(),
  /**
   * Whether the route is also deployed as a Cloudflare dynamic route (`dynamic/<route>` on the
   * compat endpoint). Default true. Cloudflare runs dynamic routes only on authenticated gateways
   * whose providers' keys are stored in the gateway (BYOK); `false` keeps the route universal-only
   * (the client sends its steps), which works on any gateway.
   */
  dynamic: z.boolean({ error: "dynamic is true or false" }).optional(),
  /**
   * What the client does when a stream breaks after text reached the caller: `restart` (default)
   * with the remaining steps, `continue` the text on a step that accepts a prefill, or `fail`.
   */
  onStreamBreak: z
    .enum(["restart", "continue", "fail"], {
      error: 'onStreamBreak must be "restart", "continue" or "fail"',
    })
    .optional(),
  /**
   * Hedged requests (client, universal calls): when the first step has not started answering
   * `afterMs` after a call's request went out, the client sends the same request to the steps
   * after it and keeps whichever answer starts first, aborting the other. Hedges stop while the
   * estimated cost of the dropped answers over the last hour would pass `maxExtraCostPerHour`.
   */
  hedge: hedgeSchema.optional(),
});

/** A route is either a bare list of steps or `{ steps, chains, policy, deadlineMs, dynamic }`. */
export const routeSchema = z.preprocess(
  (value) => (Array.isArray(value) ? { steps: value } : value),
  routeObjectSchema,
);

export const routeNameSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, {
  error: "route names use lowercase letters, digits, - and _ (at most 64 characters)",
});

export type RouteConfig = z.infer<typeof routeObjectSchema>;
export type HedgeConfig = z.infer<typeof hedgeSchema>;
export type StepConfig = z.infer<typeof stepSchema>;
