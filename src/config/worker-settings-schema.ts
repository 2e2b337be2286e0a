/**
 * @module
 * The schema of the companion Worker's settings: `keys` (the providers whose keys it holds, their
 * ages, history, grace and per-key caps) and `worker` (name, gateway URL, app rate limit, cron,
 * health probes). Part of the one config schema (`schema.ts`).
 */
import * as z from "zod";
import { providerSlugSchema } from "./field-schemas.ts";

export const keyCapsSchema = z
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

export type KeySettings = z.infer<typeof keySettingsSchema>;
export type WorkerSettings = z.infer<typeof workerSettingsSchema>;
export type KeyCaps = z.infer<typeof keyCapsSchema>;
