/**
 * @module
 * Settings the config can say and the Pulumi provider (@pulumi/cloudflare 6.22.1) cannot send:
 * an error for each, so nothing is silently dropped on `pulumi up`. `stepwise validate` reports
 * them too (one function decides both, `judgeConfig`).
 *
 * - Guardrails categories: `AiGatewayGuardrailsPrompt` / `…Response` have the fields `p1` and
 *   `s1` … `s13`, nothing else.
 * - Spend limits split by provider or model: features/spend-limits.mdx offers "Split by value"
 *   for every dimension, but the provider's `aiGatewayProvider` and `model` take "filter" only
 *   ("Available values: \"filter\""); metadata dimensions take "partition" and "filter".
 */
import type { ConfigFinding } from "./findings.ts";
import type { StepwiseConfig } from "./schema.ts";

/** The Guardrails categories @pulumi/cloudflare 6.22.1 has a field for. */
export const pulumiGuardrailCategories: ReadonlySet<string> = new Set([
  "p1",
  ...Array.from({ length: 13 }, (_, index) => `s${index + 1}`),
]);

const provider = "@pulumi/cloudflare 6.22.1";

/** An error for every setting Pulumi would have to drop. */
export function findUnsendableSettings(config: StepwiseConfig): ConfigFinding[] {
  const findings: ConfigFinding[] = [];
  config.gateways.forEach((gateway, gatewayIndex) => {
    for (const phase of ["prompt", "response"] as const) {
      for (const category of Object.keys(gateway.guardrails?.[phase] ?? {})) {
        if (pulumiGuardrailCategories.has(category)) continue;
        findings.push({
          severity: "error",
          path: ["gateways", gatewayIndex, "guardrails", phase, category],
          message: `${provider} cannot send Guardrails category "${category}" (it has fields for p1 and s1 to s13 only), so pulumi up would drop it: remove it here and set it in the dashboard`,
        });
      }
    }
    (gateway.spendLimits ?? []).forEach((rule, ruleIndex) => {
      for (const [field, dimension] of [
        ["providers", "provider"],
        ["models", "model"],
      ] as const) {
        if (rule[field] !== "split") continue;
        findings.push({
          severity: "error",
          path: ["gateways", gatewayIndex, "spendLimits", ruleIndex, field],
          message: `${provider} can send a spend limit's ${dimension} dimension only as a filter (a list of ${field}), not split by value, so pulumi up would drop it: list the ${field} the rule applies to, or split by a metadata key instead`,
        });
      }
    });
  });
  return findings;
}
