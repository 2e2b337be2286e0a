/**
 * @module
 * The companion Worker's view of a Stepwise config: the only part of the config the Worker reads,
 * as one versioned, schema-checked document. Pulumi (`src/pulumi/`) and the local system (`src/demo`)
 * bind it as the Worker variable `STEPWISE_CONFIG`, both built by `workerViewText` in
 * `worker-view-build.ts`; the Worker parses it with `parseWorkerView`.
 *
 * Why a view and not the whole config: least privilege (the Worker never sees what it does not use:
 * gateway log and spend settings, cache invalidation, route policies, retirement notes, CI-only settings, and
 * never a secret, since the view is a list of what to keep, not of what to drop) and size (Cloudflare
 * holds a Worker variable to 5 KB; the view grows with what the Worker serves, not with the
 * number of routes or the size of the price table). docs/worker.md lists every field and why.
 *
 * @example
 * const view = parseWorkerView(env.STEPWISE_CONFIG, { source: "STEPWISE_CONFIG" });
 * view.keys.providers; // the providers whose keys the Worker holds
 */
import * as z from "zod";
import { documentIssues } from "./document.ts";
import { ConfigError } from "./errors.ts";
// The parts of the config schema the view repeats, from their own files: schema.ts would bring the
// whole config's schema and checks into the Worker bundle.
import { accountIdSchema, byokSchema, cacheTtlSchema, gatewayIdSchema } from "./field-schemas.ts";
import { modelKeySchema, priceSchema } from "./price-schema.ts";
import { keySettingsSchema, workerSettingsSchema } from "./worker-settings-schema.ts";
import { workerViewVersion } from "./worker-view-version.ts";

export { workerViewVersion };

/**
 * What the Worker knows of a gateway: its id (the proxy's path check), its BYOK providers, and
 * whether it caches (so the Worker scopes cached answers to the app, `proxy/app-cache.ts`): left
 * out when the gateway neither caches by default nor shares its cache between apps.
 */
export const workerViewGatewaySchema = z.strictObject({
  id: gatewayIdSchema,
  byok: byokSchema,
  cache: z
    .strictObject({
      ttl: cacheTtlSchema,
      shareBetweenApps: z.boolean().optional(),
    })
    .optional(),
});

export const workerViewSchema = z
  .strictObject({
    version: z.literal(workerViewVersion, {
      error: `version must be ${workerViewVersion}: this Worker reads worker views of version ${workerViewVersion}; deploy the Worker and its STEPWISE_CONFIG together (pulumi up), or rebuild the variable with workerViewText(config)`,
    }),
    accountId: accountIdSchema,
    gateways: z.array(workerViewGatewaySchema).min(1, { error: "list at least one gateway" }),
    /** Prices per million tokens of the models of every provider the Worker can serve. */
    models: z.record(modelKeySchema, priceSchema.pick({ input: true, output: true })),
    /**
     * The cron's health-probe targets, per gateway to probe through: `provider/model` keys. Empty
     * when `worker.healthProbe.enabled` is false.
     */
    probes: z.record(gatewayIdSchema, z.array(modelKeySchema)),
    keys: keySettingsSchema,
    worker: workerSettingsSchema.pick({ gatewayUrl: true, appRateLimit: true, healthProbe: true }),
  })
  .superRefine((view, context) => {
    const ids = new Set(view.gateways.map((gateway) => gateway.id));
    for (const gateway of Object.keys(view.probes)) {
      if (!ids.has(gateway)) {
        context.addIssue({
          code: "custom",
          path: ["probes", gateway],
          message: `names gateway "${gateway}", which gateways does not list; rebuild the view with workerViewText(config)`,
        });
      }
    }
  });

/** The Worker's view of a config (see the module header). */
export type WorkerView = z.infer<typeof workerViewSchema>;
/** A gateway as the Worker sees it. */
export type WorkerViewGateway = z.infer<typeof workerViewGatewaySchema>;

export interface ParseWorkerViewOptions {
  /** Named in error messages. Default `STEPWISE_CONFIG`. */
  readonly source?: string;
}

/**
 * Validates a worker view: its JSON text (a `plain_text` variable) or the value (a `json`
 * binding, a test).
 * @throws {ConfigError} `config_invalid`, one issue per bad field with its path and the fix.
 */
export function parseWorkerView(input: unknown, options: ParseWorkerViewOptions = {}): WorkerView {
  const source = options.source ?? "STEPWISE_CONFIG";
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new ConfigError({
        code: "config_invalid",
        source,
        issues: [
          {
            path: "",
            message:
              "is not valid JSON: set it to workerViewText(config), as Pulumi and the local system do",
          },
        ],
        cause: error,
      });
    }
  }
  const result = workerViewSchema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw new ConfigError({
    code: "config_invalid",
    source,
    issues: documentIssues(result.error.issues, {
      schema: workerViewSchema,
      input: value,
      unknownFields: (keys) =>
        `${keys.map((key) => `"${key}"`).join(", ")} ${keys.length === 1 ? "is" : "are"} not part of the Worker's view: a whole Stepwise config, or a view of a newer version? Bind workerViewText(config), as Pulumi and the local system do`,
    }),
  });
}
