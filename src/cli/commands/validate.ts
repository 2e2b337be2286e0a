/**
 * @module
 * `stepwise validate`: check a config and print a one-screen summary, or every problem.
 */
import { Command } from "commander";
import pc from "picocolors";
import type { StepwiseConfig } from "../../config/index.ts";
import { type ConfigSourceOptions, loadConfigFrom, withConfigOptions } from "../config-options.ts";

interface ValidateOptions extends ConfigSourceOptions {
  json?: boolean;
}

export function validateCommand(): Command {
  return withConfigOptions(new Command("validate"))
    .description(
      "Validate the gateway config and print a summary (exit 1 with every problem if invalid)",
    )
    .option("--json", "print the parsed config (or the problems) as JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  stepwise validate\n  stepwise validate --stack prod\n  stepwise validate --file gateways.yaml --json",
    )
    .action(async (options: ValidateOptions) => {
      try {
        const { config, source } = await loadConfigFrom(options);
        console.log(
          options.json
            ? JSON.stringify({ ok: true, source, config }, null, 2)
            : summarise(config, source),
        );
      } catch (error) {
        const { ConfigError } = await import("../../config/errors.ts");
        if (!ConfigError.isInstance(error) || !options.json) throw error;
        console.log(
          JSON.stringify(
            { ok: false, source: error.source, code: error.code, issues: error.issues },
            null,
            2,
          ),
        );
        process.exitCode = 1;
      }
    });
}

/** The one-screen summary printed on success. */
export function summarise(config: StepwiseConfig, source: string): string {
  const lines = [`${pc.green("✔")} ${source} is valid — account ${config.accountId}`, ""];
  for (const gateway of config.gateways) {
    const settings = [
      gateway.authentication ? "auth on" : "auth off",
      gateway.cache.ttl > 0 ? `cache ${gateway.cache.ttl}s` : "cache off",
      gateway.rateLimit
        ? `rate ${gateway.rateLimit.limit}/${gateway.rateLimit.interval}s ${gateway.rateLimit.technique}`
        : "no rate limit",
      gateway.logs.collect
        ? `logs ${gateway.logs.limit ?? "default"} ${gateway.logs.strategy}`
        : "logs off",
      gateway.retries
        ? `retries ${gateway.retries.maxAttempts}× ${gateway.retries.delayMs}ms ${gateway.retries.backoff}`
        : "no retries",
    ];
    if (gateway.spendLimits?.length) settings.push(`${gateway.spendLimits.length} spend limit(s)`);
    lines.push(`${pc.bold(`gateway ${gateway.id}`)}  ${pc.dim(settings.join(" · "))}`);
    for (const [name, route] of Object.entries(gateway.routes)) {
      const chain = route.steps
        .map(
          (step) =>
            `${step.provider}/${step.model}${step.timeoutMs ? pc.dim(` ${step.timeoutMs / 1000}s`) : ""}`,
        )
        .join(pc.dim(" → "));
      const deadline = route.deadlineMs ? pc.dim(` (deadline ${route.deadlineMs / 1000}s)`) : "";
      lines.push(`  route ${pc.cyan(name)}: ${chain}${deadline}`);
    }
  }
  const byok = config.gateways.flatMap((gateway) =>
    (gateway.byok?.providers ?? []).map((provider) => `${gateway.id}:${provider}`),
  );
  lines.push(
    "",
    `keys in the companion Worker: ${config.keys.providers.join(", ") || "none"} (max age ${config.keys.maxAgeDays} days, history ${config.keys.historyHours} h)`,
  );
  if (byok.length > 0) lines.push(`keys in the gateway (BYOK): ${byok.join(", ")}`);
  const priced = Object.keys(config.models).length;
  lines.push(`model prices: ${priced} model(s)`);
  return lines.join("\n");
}
