/**
 * @module
 * `stepwise validate`: check a config and print a one-screen summary, or every problem.
 */
import { Command } from "commander";
import pc from "picocolors";
import type { RouteConfig, StepwiseConfig } from "../../config/index.ts";
import { type ConfigSourceOptions, loadConfigFrom, withConfigOptions } from "../config-options.ts";
import { exitCodeOf, exitCodesHelp } from "../exit-codes.ts";

interface ValidateOptions extends ConfigSourceOptions {
  json?: boolean;
}

export function validateCommand(): Command {
  return withConfigOptions(new Command("validate"))
    .description(
      "Validate the gateway config and print a summary (exit 1 with every problem if invalid, or if Cloudflare would not run it; warnings exit 0)",
    )
    .option(
      "--json",
      "print the parsed config (or the problems) as JSON; every issue and warning has a severity",
    )
    .addHelpText(
      "after",
      `\nExamples:\n  stepwise validate\n  stepwise validate --stack prod\n  stepwise validate --file gateways.yaml --json\n${exitCodesHelp("the config has a problem (each is printed with its line and fix)")}`,
    )
    .action(async (options: ValidateOptions) => {
      try {
        const { config, source, locate } = await loadConfigFrom(options);
        // Valid configs are also checked against what Cloudflare would run: errors exit 1,
        // warnings are printed and the command succeeds.
        const { formatFindingLines, locateFindings, throwOnErrorFindings } = await import(
          "../../config/index.ts"
        );
        const { describeRule, findConfigFindings } = await import("../../routes/index.ts");
        const findings = locateFindings(findConfigFindings(config), locate);
        const warnings = findings.filter((finding) => finding.severity === "warning");
        if (!options.json) throwOnErrorFindings(findings, source);
        if (options.json && findings.some((finding) => finding.severity === "error")) {
          printJson({
            ok: false,
            source,
            code: "config_not_deployable",
            issues: findings.filter((finding) => finding.severity === "error"),
            warnings,
          });
          process.exitCode = 1;
          return;
        }
        if (options.json) {
          printJson({ ok: true, source, config, warnings });
          return;
        }
        console.log(summarise(config, source, describeRule));
        if (warnings.length > 0) console.warn(warningsText(formatFindingLines(warnings)));
      } catch (error) {
        const { ConfigError } = await import("../../config/errors.ts");
        if (!ConfigError.isInstance(error) || !options.json) throw error;
        printJson({
          ok: false,
          source: error.source,
          code: error.code,
          issues: error.issues.map((issue) => ({ severity: "error", ...issue })),
          warnings: [],
        });
        process.exitCode = exitCodeOf(error);
      }
    });
}

function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** Warnings after the summary: they do not fail the command. */
function warningsText(lines: readonly string[]): string {
  const count = lines.length === 1 ? "1 warning" : `${lines.length} warnings`;
  return [
    "",
    pc.yellow(`${count}: valid, but once deployed it behaves differently from what it says`),
    ...lines,
  ].join("\n");
}

/** Says one policy rule in words (`describeRule`, loaded with the action). */
type DescribeRule = (rule: NonNullable<RouteConfig["policy"]>[number]) => string;

/** A policy route's other chains and its rules, indented under the route. */
function policyLines(route: RouteConfig, describeRule: DescribeRule): string[] {
  const chains = Object.entries(route.chains ?? {}).map(
    ([name, steps]) =>
      `    chain ${pc.cyan(name)}: ${steps.map((step) => `${step.provider}/${step.model}`).join(pc.dim(" → "))}`,
  );
  const rules = (route.policy ?? []).map(
    (rule, index) => `    rule ${index}: ${describeRule(rule)}`,
  );
  return [...chains, ...rules, pc.dim("    no rule matches → default (the steps above)")];
}

/** The one-screen summary printed on success. */
export function summarise(
  config: StepwiseConfig,
  source: string,
  describeRule: DescribeRule,
): string {
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
      const form = route.dynamic === false ? pc.dim(" (universal only)") : "";
      lines.push(`  route ${pc.cyan(name)}: ${chain}${deadline}${form}`);
      if (route.policy !== undefined) lines.push(...policyLines(route, describeRule));
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
