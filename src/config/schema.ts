/**
 * @module
 * The one zod schema for a Stepwise config: the `stepwise:` namespace of `Pulumi.<stack>.yaml`,
 * or the same keys in any YAML or JSON file. Every other part of Stepwise (Pulumi, CLI, emulator,
 * Worker, client) reads its settings through the types inferred here.
 *
 * Messages say how to fix the problem; cross-field checks live in `checks.ts`.
 */
import { z } from "zod";
import { checkConfig } from "./checks.ts";
import { chainsSchema, policySchema } from "./policy-schema.ts";

/** Provider slugs this schema accepts besides `custom-<slug>`. Kept in sync with the registry by a test. */
export const builtInProviderSlugs = [
  "openai",
  "anthropic",
  "workers-ai",
  "groq",
  "mistral",
  "deepseek",
  "grok",
  "google-ai-studio",
  "openrouter",
] as const;

const customProviderPattern = /^custom-[a-z0-9][a-z0-9-]{0,62}$/;

export const providerSlugSchema = z
  .string()
  .refine(
    (slug) =>
      (builtInProviderSlugs as readonly string[]).includes(slug) ||
      customProviderPattern.test(slug),
    {
      error: (issue) =>
        `unknown provider "${String(issue.input)}": use one of ${builtInProviderSlugs.join(", ")}, or custom-<slug> for an OpenAI-compatible custom provider`,
    },
  );

/** A Pulumi-encrypted value (`{ secure: "v1:..." }`). Recognised, never needed locally. */
export const secureValueSchema = z.strictObject({ secure: z.string() });
const secretStringSchema = z.union([z.string().min(1), secureValueSchema]);

const cacheTtlSchema = z
  .int({ error: "cache TTL must be a whole number of seconds" })
  .refine((ttl) => ttl === 0 || (ttl >= 60 && ttl <= 2_592_000), {
    error: "cache TTL must be 0 (off) or between 60 and 2592000 seconds (30 days)",
  });

const backoffSchema = z.enum(["constant", "linear", "exponential"], {
  error: 'backoff must be "constant", "linear" or "exponential"',
});

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

const hedgeSchema = z.strictObject(
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

const routeObjectSchema = z.strictObject({
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

const routeNameSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, {
  error: "route names use lowercase letters, digits, - and _ (at most 64 characters)",
});

const spendLimitSchema = z.strictObject({
  id: z.string().min(1).max(64).optional(),
  /** Budget in USD for the window. */
  limit: z.number().min(0),
  windowSeconds: z.int().min(60, { error: "windowSeconds must be at least 60" }),
  technique: z.enum(["fixed", "sliding"]).default("sliding"),
  providers: z.array(providerSlugSchema).optional(),
  models: z.array(z.string().min(1)).optional(),
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
  routes: z
    .record(routeNameSchema, routeSchema)
    .refine((routes) => Object.keys(routes).length > 0, {
      error: "a gateway needs at least one route",
    }),
});

/** A price table key: `"<provider>/<model>"`. */
export const modelKeySchema = z.string().regex(/^[a-z0-9-]+\/.+$/, {
  error: 'model keys are "<provider>/<model>", e.g. openai/gpt-4o-mini',
});

/**
 * The day a provider retires a model, `YYYY-MM-DD` (UTC). A date-time (what some YAML readers
 * make of an unquoted date) is taken as its day.
 */
const retirementDateSchema = z.preprocess(
  (value) => (value instanceof Date ? value.toISOString() : value),
  z
    .string({ error: 'retires.date is a day, e.g. "2026-07-14" (quote it)' })
    .transform((text) => text.slice(0, 10))
    .pipe(z.iso.date({ error: 'retires.date is a day, e.g. "2026-07-14" (quote it)' })),
);

export const priceSchema = z.strictObject({
  input: z.number().min(0, { error: "price per million input tokens must be 0 or more" }),
  output: z.number().min(0, { error: "price per million output tokens must be 0 or more" }),
  /**
   * When the provider retires this model and what replaces it: `stepwise validate` warns about
   * every step using it before the date and fails after it, naming the replacement.
   */
  retires: z
    .strictObject({
      date: retirementDateSchema,
      /** The `provider/model` to use instead. */
      replacement: modelKeySchema,
    })
    .optional(),
});

const keyCapsSchema = z
  .strictObject({
    rpm: z
      .int({ error: "rpm is a whole number of requests per minute" })
      .min(1, { error: "rpm must be at least 1; leave it out for no cap" })
      .optional(),
    tpm: z
      .int({ error: "tpm is a whole number of tokens per minute" })
      .min(1, { error: "tpm must be at least 1; leave it out for no cap" })
      .optional(),
  })
  .refine((caps) => caps.rpm !== undefined || caps.tpm !== undefined, {
    error: "give rpm, tpm or both (the provider's per-key limits); remove the entry otherwise",
  });

export const keySettingsSchema = z.strictObject({
  /** Providers whose keys the companion Worker holds. */
  providers: z.array(providerSlugSchema).default([]),
  maxAgeDays: z.int().min(1).max(3650).default(90),
  historyHours: z
    .int()
    .min(1)
    .max(24 * 365)
    .default(24),
  /** How long readers may keep using the previous key after a rotation (KV propagation). */
  graceSeconds: z.int().min(0).max(3600).default(60),
  /**
   * Per provider, the provider's own limits on each key of its pool (requests and tokens per
   * minute, as the provider's dashboard shows them): the Worker skips a key at its cap instead of
   * spending an attempt on a certain 429.
   */
  caps: z.record(providerSlugSchema, keyCapsSchema).default({}),
});

export const workerSettingsSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, {
      error: "worker.name uses lowercase letters, digits and hyphens",
    })
    .default("stepwise-keys"),
  /** Where the Worker forwards gateway calls; Cloudflare's gateway by default. */
  gatewayUrl: z.url().default("https://gateway.ai.cloudflare.com"),
  appRateLimit: z
    .strictObject({ limit: z.int().min(1), windowSeconds: z.int().min(1) })
    .default({ limit: 600, windowSeconds: 60 }),
  cron: z.string().min(9).default("*/15 * * * *"),
  /** The account's workers.dev subdomain (`<subdomain>.workers.dev`), to report the Worker's URL. */
  workersDevSubdomain: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, {
      error: "workersDevSubdomain is the part before .workers.dev",
    })
    .optional(),
  healthProbe: z
    .strictObject({
      enabled: z.boolean().default(false),
      /** A probe slower than this (ms to the answer's headers) is `degraded`. */
      slowMs: z.int().min(1).default(5_000),
      /** `slowMs` for one provider (`openai`) or one model (`openai/gpt-4o`); the model wins. */
      slowMsPerModel: z
        .record(
          z.string().regex(/^[a-z0-9-]+(?:\/.+)?$/, {
            error: 'slowMsPerModel keys are "<provider>" or "<provider>/<model>"',
          }),
          z.int({ error: "slowMs is a whole number of ms" }).min(1, {
            error: "slowMs must be at least 1 ms",
          }),
        )
        .default({}),
      /**
       * After a provider/model recovers (down or degraded → healthy), clients give it a growing
       * share of traffic for this long before its full share (`GET /health` `probation`).
       */
      probationSeconds: z
        .int()
        .min(0)
        .max(86_400, { error: "probationSeconds must be 0 to 86400 (a day)" })
        .default(900),
    })
    .prefault({}),
});

export const configShapeSchema = z.strictObject({
  accountId: z
    .string({ error: "accountId is required: your 32-character Cloudflare account id" })
    .regex(/^[0-9a-f]{32}$/, {
      error: "accountId must be the 32 lowercase hex characters of your Cloudflare account id",
    }),
  gateways: z.array(gatewaySchema).min(1, { error: "declare at least one gateway" }),
  models: z.record(modelKeySchema, priceSchema).default({}),
  keys: keySettingsSchema.prefault({}),
  worker: workerSettingsSchema.prefault({}),
  /** Gateway token sent as `cf-aig-authorization` (Pulumi secret). */
  gatewayToken: secretStringSchema.optional(),
  /** Admin token of the companion Worker's rotation API (Pulumi secret). */
  rotateToken: secretStringSchema.optional(),
  /**
   * API token with the account's "Secrets Store Edit" permission and nothing else (Pulumi
   * secret): the companion Worker overwrites the gateways' BYOK secrets with it after a rotation.
   */
  secretsStoreToken: secretStringSchema.optional(),
  /**
   * API token with the account's "Account Analytics Read" permission and nothing else (Pulumi
   * secret): the companion Worker's cron writes a daily summary point per route with it.
   */
  analyticsApiToken: secretStringSchema.optional(),
  /**
   * Provider keys for BYOK gateways, stored by Pulumi in Secrets Store (Pulumi secrets:
   * `pulumi config set --secret --path 'stepwise:byokKeys.anthropic' sk-...`).
   */
  byokKeys: z.record(providerSlugSchema, secretStringSchema).optional(),
});

/** The whole config, with the cross-field checks of `checks.ts`. */
export const configSchema = configShapeSchema.superRefine(checkConfig);

export type StepwiseConfig = z.infer<typeof configShapeSchema>;
export type GatewayConfig = z.infer<typeof gatewaySchema>;
export type RouteConfig = z.infer<typeof routeObjectSchema>;
export type HedgeConfig = z.infer<typeof hedgeSchema>;
export type StepConfig = z.infer<typeof stepSchema>;
export type KeySettings = z.infer<typeof keySettingsSchema>;
export type WorkerSettings = z.infer<typeof workerSettingsSchema>;
export type ModelPrices = StepwiseConfig["models"];
export type ModelRetirement = NonNullable<ModelPrices[string]["retires"]>;
export type SpendLimitConfig = z.infer<typeof spendLimitSchema>;
export type KeyCaps = z.infer<typeof keyCapsSchema>;
