/**
 * @module
 * The JSON Schema of a Stepwise stack file (`Pulumi.<stack>.yaml`), generated from the one zod
 * schema with zod 4's `z.toJSONSchema`, for editors: a `# yaml-language-server: $schema=…`
 * comment in the stack file gives completion and inline errors in VS Code (Red Hat's YAML
 * extension) and JetBrains IDEs. The build writes it into the package
 * (`dist/stepwise-config.schema.json`) and the repository keeps a copy
 * (`schema/stepwise-config.schema.json`, held up to date by a test).
 *
 * What JSON Schema can say, it says as the zod schema does: types, ranges, patterns, required and
 * unknown fields. Refinements zod runs as code are written out here where JSON Schema has a word
 * for them (provider slugs, the cache TTL, a route given as its bare list of steps); the other
 * cross-field rules, and what Cloudflare would refuse, stay with `stepwise validate`.
 */
import * as z from "zod";
import { builtInProviderSlugs, cacheTtlSchema, providerSlugSchema } from "./field-schemas.ts";
import { configNamespace } from "./load.ts";
import { routeSchema } from "./route-schema.ts";
import { configShapeSchema } from "./schema.ts";

/** The file name of the schema, in `dist/` and `schema/`. */
export const jsonSchemaFileName = "stepwise-config.schema.json";

type JsonSchema = Record<string, unknown>;

/** What each top-level key is, shown by editors on hover and in completion. */
const topLevelDescriptions: Readonly<Record<string, string>> = {
  accountId: "Your Cloudflare account id: 32 lowercase hex characters.",
  gateways: "The AI gateways, each with its settings and routes.",
  models: 'Prices per million tokens and retirement notes, by "<provider>/<model>".',
  keys: "Provider keys the companion Worker holds, and how it rotates them.",
  worker: "The companion Worker: its name, cron, rate limit and health probe.",
  gatewayToken: "Gateway token sent as cf-aig-authorization (pulumi config set --secret).",
  rotateToken: "Admin token of the companion Worker's rotation API (pulumi config set --secret).",
  secretsStoreToken: 'API token with "Secrets Store Edit" only (pulumi config set --secret).',
  analyticsApiToken: 'API token with "Account Analytics Read" only (pulumi config set --secret).',
  byokKeys: "Provider keys Pulumi stores in Secrets Store for BYOK gateways (Pulumi secrets).",
};

/** Replaces a generated schema's keys by `next`'s, in place (zod's `override` edits in place). */
function replace(schema: JsonSchema, next: JsonSchema): void {
  for (const key of Object.keys(schema)) delete schema[key];
  Object.assign(schema, next);
}

/** The Stepwise keys (`accountId`, `gateways`, …) as JSON Schema, for a plain config file. */
export function configJsonSchema(): JsonSchema {
  return z.toJSONSchema(configShapeSchema, {
    io: "input",
    // Red Hat's YAML language server (VS Code's YAML extension) supports JSON Schema 7 and below.
    target: "draft-7",
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema }) => {
      const schema = jsonSchema as JsonSchema;
      if (zodSchema === providerSlugSchema) {
        replace(schema, {
          type: "string",
          anyOf: [
            { enum: [...builtInProviderSlugs] },
            { pattern: "^custom-[a-z0-9][a-z0-9-]{0,62}$" },
          ],
        });
      } else if (zodSchema === cacheTtlSchema) {
        replace(schema, {
          type: "integer",
          anyOf: [{ const: 0 }, { minimum: 60, maximum: 2_592_000 }],
        });
      } else if (zodSchema === routeSchema) {
        const object = { ...schema };
        const steps = (object.properties as Record<string, JsonSchema> | undefined)?.steps;
        replace(schema, { anyOf: [object, ...(steps ? [steps] : [])] });
      }
    },
  }) as JsonSchema;
}

/**
 * A Pulumi stack file: `config:` with the Stepwise keys as `stepwise:<key>`, any other
 * namespace's keys (`cloudflare:apiToken`) and Pulumi's own top-level keys left alone.
 */
export function stackFileJsonSchema(): JsonSchema {
  const { $schema, properties, required } = configJsonSchema() as {
    $schema: string;
    properties: Record<string, JsonSchema>;
    required?: string[];
  };
  const prefix = `${configNamespace}:`;
  return {
    $schema,
    title: "Stepwise stack file (Pulumi.<stack>.yaml)",
    description:
      "Cloudflare AI Gateway as code: the stepwise: keys of a Pulumi stack file. `npx stepwise validate` runs every check, this schema the ones JSON Schema can express.",
    type: "object",
    properties: {
      config: {
        type: "object",
        properties: Object.fromEntries(
          Object.entries(properties).map(([key, schema]) => [
            `${prefix}${key}`,
            { description: topLevelDescriptions[key], ...schema },
          ]),
        ),
        required: (required ?? []).map((key) => `${prefix}${key}`),
        // Other namespaces are free; an unknown stepwise: key is a mistake.
        patternProperties: { [`^(?!${prefix})`]: {} },
        additionalProperties: false,
      },
    },
    required: ["config"],
  };
}

/** The stack file schema as the file the build writes: two-space JSON and a final newline. */
export function stackFileJsonSchemaText(): string {
  return `${JSON.stringify(stackFileJsonSchema(), null, 2)}\n`;
}
