/**
 * @module
 * `stepwise validate`: check a config and print a one-screen summary, or every problem.
 */
import { Command, Option } from "commander";
import pc from "picocolors";
import type { LocatedFinding, RouteConfig, StepwiseConfig } from "../../config/index.ts";
import {
  type ConfigSourceOptions,
  loadConfigInputFrom,
  withConfigOptions,
} from "../config-options.ts";
import { exitCodeOf, exitCodes, exitCodesHelp } from "../exit-codes.ts";
import { githubAnnotations, printJson, warningsText } from "./validate-output.ts";

interface ValidateOptions extends ConfigSourceOptions {
  json?: boolean;
  strict?: boolean;
  format: "text" | "github";
}

export function validateCommand(): Command {
  return withConfigOptions(new Command("validate"))
    .description(
      "Validate the gateway config and print a summary: every problem in one run, each with its line and fix (exit 1 if invalid, or if Cloudflare would not run it; warnings exit 0 unless --strict)",
    )
    .option(
      "--json",
      "print the parsed config (or the problems) as JSON; every issue and warning has a severity",
    )
    .option("--strict", "warnings fail too (exit 1), for a CI gate")
    .addOption(
      new Option(
        "--format <format>",
        "text for people, or github for GitHub Actions annotations (::error file=…,line=…::) on the pull request",
      )
        .choices(["text", "github"])
        .default("text"),
    )
    .addHelpText(
      "after",
      `\nExamples:\n  stepwise validate\n  stepwise validate --stack prod\n  stepwise validate --file gateways.yaml --json\n  stepwise validate --stack dev --strict --format github   # in CI\n${exitCodesHelp("the config has a problem (each is printed with its line and fix), or a warning under --strict")}`,
    )
    .action(async (options: ValidateOptions) => {
      let loaded: Awaited<ReturnType<typeof loadConfigInputFrom>>;
      try {
        loaded = await loadConfigInputFrom(options);
      } catch (error) {
        const { ConfigError } = await import("../../config/errors.ts");
        if (!ConfigError.isInstance(error) || (!options.json && options.format !== "github")) {
          throw error;
        }
        const issues = error.issues.map(
          (issue): LocatedFinding => ({ severity: "error", ...issue }),
        );
        if (options.json) {
          printJson({ ok: false, source: error.source, code: error.code, issues, warnings: [] });
        } else {
          for (const line of githubAnnotations(error.source, issues)) console.log(line);
        }
        process.exitCode = exitCodeOf(error);
        return;
      }
      const { source, locate } = loaded;
      const { judgeConfig } = await import("../../routes/config-verdict.ts");
      const verdict = judgeConfig(loaded.input, {
        locate,
        ...(loaded.topLevelKey ? { topLevelKey: loaded.topLevelKey } : {}),
      });
      const { errors, warnings } = verdict;
      const failsOnWarnings = options.strict === true && warnings.length > 0;
      if (errors.length > 0 || failsOnWarnings) process.exitCode = exitCodes.failed;
      if (options.json) {
        if (errors.length > 0) {
          printJson({ ok: false, source, code: verdict.code, issues: errors, warnings });
        } else if (failsOnWarnings) {
          printJson({ ok: false, source, code: "config_warnings_strict", issues: [], warnings });
        } else {
          const { listStepCredentials } = await import("../../routes/credential-listing.ts");
          const credentials = verdict.config ? listStepCredentials(verdict.config) : [];
          printJson({ ok: true, source, config: verdict.config, credentials, warnings });
        }
        return;
      }
      if (options.format === "github") {
        const lines = githubAnnotations(source, [...errors, ...warnings]);
        for (const line of lines) console.log(line);
        console.log(countLine(source, errors.length, warnings.length, options.strict === true));
        return;
      }
      const { formatFindingLines } = await import("../../config/findings.ts");
      if (errors.length > 0) {
        const { ConfigError } = await import("../../config/errors.ts");
        const code = verdict.code ?? "config_invalid";
        console.error(pc.red(new ConfigError({ code, source, issues: errors }).message));
      } else if (verdict.config !== undefined) {
        const { describeRule } = await import("../../routes/index.ts");
        const { listStepCredentials, stepCredentialLine } = await import(
          "../../routes/credential-listing.ts"
        );
        const credentials = listStepCredentials(verdict.config);
        const keyLines = (gateway: string, route: string) =>
          credentials
            .filter((entry) => entry.gateway === gateway && entry.route === route)
            .map((entry) => pc.dim(`    ${stepCredentialLine(entry)}`));
        console.log(summarise(verdict.config, source, describeRule, keyLines));
      }
      if (warnings.length > 0) {
        console.warn(warningsText(formatFindingLines(warnings), options.strict === true));
      }
    });
}

/** The last line of `--format github`: what the run found, for the log. */
function countLine(source: string, errors: number, warnings: number, strict: boolean): string {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
  const verdict =
    errors > 0 || (strict && warnings > 0)
      ? "fails"
      : errors + warnings > 0
        ? "passes"
        : "is valid";
  return `${source} ${verdict}: ${plural(errors, "error")}, ${plural(warnings, "warning")}${strict ? " (--strict)" : ""}`;
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
  keyLines: (gateway: string, route: string) => string[] = () => [],
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
    if (gateway.credentials) settings.push(`keys: ${gateway.credentials}`);
    if (gateway.byokOnly) settings.push("provider credentials required (byokOnly)");
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
      lines.push(...keyLines(gateway.id, name));
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
