/**
 * @module
 * Field schemas that several parts of the config share: provider slugs, Pulumi secrets, cache
 * TTLs and retry backoff. Part of the one config schema (`schema.ts`).
 */
import * as z from "zod";
import { builtInProviderSlugs, isConfigProviderSlug } from "./provider-slugs.ts";

export { builtInProviderSlugs } from "./provider-slugs.ts";

export const providerSlugSchema = z.string().refine(isConfigProviderSlug, {
  error: (issue) =>
    `unknown provider "${String(issue.input)}": use one of ${builtInProviderSlugs.join(", ")}, or custom-<slug> for an OpenAI-compatible custom provider`,
});

/** A Pulumi-encrypted value (`{ secure: "v1:..." }`). Recognised, never needed locally. */
export const secureValueSchema = z.strictObject({ secure: z.string() });
export const secretStringSchema = z.union([z.string().min(1), secureValueSchema]);

/** The config's `accountId`. Here, not in schema.ts, so the Worker's view needs no more of it. */
export const accountIdSchema = z
  .string({ error: "accountId is required: your 32-character Cloudflare account id" })
  .regex(/^[0-9a-f]{32}$/, {
    error: "accountId must be the 32 lowercase hex characters of your Cloudflare account id",
  });

/** A gateway's `id`. */
export const gatewayIdSchema = z.string().regex(/^[a-z0-9-]{1,64}$/, {
  error: "gateway ids use lowercase letters, digits and hyphens, at most 64 characters",
});

/**
 * A gateway's `byok`: the providers whose keys the gateway stores (Secrets Store secret
 * `{gateway}_{provider}_default` and a provider config), which dynamic routes need. The keys
 * themselves are Pulumi secrets (`byokKeys.<provider>`).
 */
export const byokSchema = z
  .strictObject({
    providers: z
      .array(providerSlugSchema)
      .min(1, { error: "byok.providers lists at least one provider; remove byok otherwise" }),
  })
  .optional();

export const cacheTtlSchema = z
  .int({ error: "cache TTL must be a whole number of seconds" })
  .refine((ttl) => ttl === 0 || (ttl >= 60 && ttl <= 2_592_000), {
    error: "cache TTL must be 0 (off) or between 60 and 2592000 seconds (30 days)",
  });

export const backoffSchema = z.enum(["constant", "linear", "exponential"], {
  error: 'backoff must be "constant", "linear" or "exponential"',
});
