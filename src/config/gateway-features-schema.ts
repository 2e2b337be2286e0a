/**
 * @module
 * The gateway features Cloudflare runs and Stepwise only deploys: Guardrails
 * (features/guardrails/set-up-guardrail.mdx: per category, **Flag** or **Block**, on prompts and
 * responses; **Ignore** is leaving the category out), Data Loss Prevention (DLP profiles, flagged
 * or blocked) and OpenTelemetry export (observability/otel-integration.mdx: exporters with a URL,
 * headers, a Secrets Store authorization reference and a content type). Part of the one config
 * schema (`gateway-schema.ts`); Pulumi sends them as the gateway's `guardrails`, `dlp` and `otels`.
 *
 * A setting the Pulumi provider has no field for is accepted here and refused by the preflight
 * (`unsendable-settings.ts`), so the message can say why instead of "unknown field".
 */
import * as z from "zod";

const actionSchema = z.enum(["flag", "block"], {
  error: 'a Guardrails or DLP action is "flag" or "block" (leave a category out to ignore it)',
});

/** A Guardrails category code: `p1`, `s1` … (the hazard categories of the scanning model). */
const categorySchema = z.string().regex(/^[ps][0-9]{1,2}$/, {
  error: "Guardrails categories are written as their codes: p1, s1, s2 … s13",
});

const phaseSchema = z.record(categorySchema, actionSchema);

export const guardrailsSchema = z.strictObject({
  /** Categories checked on the prompt, before the provider is called. */
  prompt: phaseSchema.default({}),
  /** Categories checked on the provider's answer. */
  response: phaseSchema.default({}),
});

export const dlpPolicySchema = z.strictObject({
  id: z.string().min(1).max(64),
  action: actionSchema,
  /** What the policy scans, as the API names it (e.g. `request`, `response`). */
  checks: z.array(z.string().min(1)).min(1),
  /** DLP profile ids. */
  profiles: z.array(z.string().min(1)).min(1),
  enabled: z.boolean().default(true),
});

export const dlpSchema = z.strictObject({
  /** What a match does, for the profiles listed here. */
  action: actionSchema.default("flag"),
  /** DLP profile ids (Zero Trust → DLP profiles). */
  profiles: z.array(z.string().min(1)).default([]),
  policies: z.array(dlpPolicySchema).optional(),
});

export const otelExporterSchema = z.strictObject({
  /** The OTLP endpoint of the collector. */
  url: z.url({ error: "otel[].url is the collector's OTLP endpoint, an https:// URL" }),
  /** Extra headers of each export request. */
  headers: z.record(z.string().min(1), z.string()).default({}),
  /** A Secrets Store secret whose value is sent as `Authorization`. */
  authorization: z.string().min(1).optional(),
  contentType: z.enum(["json", "protobuf"]).default("json"),
});

export type GuardrailsConfig = z.infer<typeof guardrailsSchema>;
export type DlpConfig = z.infer<typeof dlpSchema>;
export type OtelExporterConfig = z.infer<typeof otelExporterSchema>;
