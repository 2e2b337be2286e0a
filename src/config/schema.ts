/**
 * @module
 * The one zod schema for a Stepwise config: the `stepwise:` namespace of `Pulumi.<stack>.yaml`,
 * or the same keys in any YAML or JSON file. Every other part of Stepwise (Pulumi, CLI, emulator,
 * Worker, client) reads its settings through the types inferred here.
 *
 * Its parts live by concern: shared fields (`field-schemas.ts`), routes (`route-schema.ts`),
 * gateways (`gateway-schema.ts`), prices (`price-schema.ts`), the Worker's settings
 * (`worker-settings-schema.ts`) and routing policies (`policy-schema.ts`); this file puts them
 * together and is where the rest of Stepwise imports them from.
 *
 * Messages say how to fix the problem; cross-field checks live in `checks.ts`.
 */
import * as z from "zod";
import { checkConfig } from "./checks.ts";
import { providerSlugSchema, secretStringSchema } from "./field-schemas.ts";
import { gatewaySchema } from "./gateway-schema.ts";
import { modelKeySchema, priceSchema } from "./price-schema.ts";
import { keySettingsSchema, workerSettingsSchema } from "./worker-settings-schema.ts";

export { builtInProviderSlugs, providerSlugSchema, secureValueSchema } from "./field-schemas.ts";
export type {
  DlpConfig,
  GuardrailsConfig,
  OtelExporterConfig,
} from "./gateway-features-schema.ts";
export { type GatewayConfig, gatewaySchema, type SpendLimitConfig } from "./gateway-schema.ts";
export { modelKeySchema, priceSchema } from "./price-schema.ts";
export {
  type HedgeConfig,
  type RouteConfig,
  routeSchema,
  type StepConfig,
  stepSchema,
} from "./route-schema.ts";
export {
  type KeyCaps,
  type KeySettings,
  keySettingsSchema,
  type WorkerSettings,
  workerSettingsSchema,
} from "./worker-settings-schema.ts";

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
export type ModelPrices = StepwiseConfig["models"];
export type ModelRetirement = NonNullable<ModelPrices[string]["retires"]>;
