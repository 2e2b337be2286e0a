/**
 * @module
 * The secrets a deploy cannot do without: the companion Worker's admin token when the Worker is
 * deployed, and a key for every provider a gateway keeps in Secrets Store (BYOK). `stepwise
 * validate` sees them as `secure:` values in the stack file; the Pulumi program as the stack's
 * secret config. Both ask this module, so they agree on what is missing.
 */
import type { ConfigFinding } from "./findings.ts";
import type { StepwiseConfig } from "./schema.ts";

/** Which deploy secrets are set. */
export interface PresentSecrets {
  readonly rotateToken: boolean;
  /** Providers with a `stepwise:byokKeys.<provider>` secret. */
  readonly byokKeys: ReadonlySet<string>;
}

/** The secrets a config's own fields set (a stack file's `secure:` values). */
export function secretsInConfig(config: StepwiseConfig): PresentSecrets {
  return {
    rotateToken: config.rotateToken !== undefined,
    byokKeys: new Set(Object.keys(config.byokKeys ?? {})),
  };
}

/** The Worker (and its KV namespace) is deployed when it holds at least one provider's key. */
export function deploysWorker(config: StepwiseConfig): boolean {
  return config.keys.providers.length > 0;
}

/** Every provider whose key some gateway keeps in Secrets Store, each once. */
export function byokProviders(config: StepwiseConfig): string[] {
  return [...new Set(config.gateways.flatMap((gateway) => gateway.byok?.providers ?? []))];
}

/** An error for each secret the deploy needs and does not have, naming the command that sets it. */
export function findMissingSecrets(
  config: StepwiseConfig,
  present: PresentSecrets = secretsInConfig(config),
): ConfigFinding[] {
  const findings: ConfigFinding[] = [];
  if (deploysWorker(config) && !present.rotateToken) {
    findings.push({
      severity: "error",
      path: ["rotateToken"],
      lineOf: ["keys", "providers"],
      message:
        "the companion Worker needs an admin token: pulumi config set --secret stepwise:rotateToken <long random token>",
    });
  }
  for (const provider of byokProviders(config)) {
    if (!present.byokKeys.has(provider)) {
      const gateway = config.gateways.findIndex((entry) =>
        entry.byok?.providers.includes(provider),
      );
      const listed = config.gateways[gateway]?.byok?.providers.indexOf(provider) ?? 0;
      findings.push({
        severity: "error",
        path: ["byokKeys", provider],
        lineOf: ["gateways", gateway, "byok", "providers", listed],
        message: `a gateway keeps ${provider}'s key in Secrets Store (byok): pulumi config set --secret --path 'stepwise:byokKeys.${provider}' <key>`,
      });
    }
  }
  return findings;
}
