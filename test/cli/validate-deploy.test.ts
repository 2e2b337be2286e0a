/**
 * `stepwise validate` also tells whether Cloudflare would run the config: a dynamic route on an
 * unauthenticated or key-less gateway exits 1 naming the route and the fix; settings a dynamic
 * route drops are warnings (exit 0), and `--json` gives every entry a severity. A step on a model
 * `stepwise:models` marks as retiring is a warning before the date and an error from it on.
 */
import { describe, expect, it } from "vitest";
import { stepwise } from "../helpers/stepwise-cli.ts";

const undeployable = "test/__fixtures__/config/Pulumi.undeployable.yaml";

interface Entry {
  severity: string;
  path: string;
  message: string;
  line?: number;
}

describe("stepwise validate: what Cloudflare would run", () => {
  it("exits 1 for dynamic routes on an unauthenticated or key-less gateway, naming route and fix", async () => {
    const { code, stderr } = await stepwise("validate", "--file", undeployable);
    expect(code).toBe(1);
    expect(stderr).toContain("it would not work on Cloudflare");
    expect(stderr).toMatch(
      /gateways\[0\]\.routes\.default \(line 8\): route "default" is deployed as the dynamic route dynamic\/default, but gateway "open" is not authenticated.*set gateways\[0\]\.authentication: true, or set dynamic: false on route "default"/,
    );
    expect(stderr).toMatch(
      /gateways\[1\]\.routes\.default\.steps\[1\]\.provider \(line 16\): .*calls anthropic with the key stored in gateway "keyless" \(BYOK\), and there is none: add anthropic to gateways\[1\]\.byok\.providers/,
    );
    // openai has a stored key on `keyless`: no error for it.
    expect(stderr).not.toMatch(/calls openai with the key stored in gateway "keyless"/);
  });

  it("lists errors and warnings with a severity in --json, keeping the issues shape", async () => {
    const { code, stdout } = await stepwise("validate", "--file", undeployable, "--json");
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as {
      ok: boolean;
      code: string;
      issues: Entry[];
      warnings: Entry[];
    };
    expect(report.ok).toBe(false);
    expect(report.code).toBe("config_not_deployable");
    expect(report.issues.map((issue) => [issue.severity, issue.path])).toEqual([
      ["error", "gateways[0].routes.default"],
      ["error", "gateways[0].routes.default.steps[0].provider"],
      ["error", "gateways[1].routes.default.steps[1].provider"],
    ]);
    expect(report.warnings.map((warning) => [warning.severity, warning.path])).toEqual([
      ["warning", "gateways[1].routes.default.steps[0].retryDelayMs"],
      ["warning", "gateways[1].routes.default.steps[0].backoff"],
    ]);
    expect(report.warnings[0]!.message).toContain("dynamic/default cannot express");
  });

  it("marks schema problems as errors in --json too", async () => {
    const { stdout } = await stepwise(
      "validate",
      "--file",
      "test/__fixtures__/config/Pulumi.broken.yaml",
      "--json",
    );
    const report = JSON.parse(stdout) as { issues: Entry[]; warnings: Entry[] };
    expect(report.issues.length).toBeGreaterThan(0);
    expect(report.issues.every((issue) => issue.severity === "error")).toBe(true);
    // One run reports the warnings of the valid part too.
    expect(report.warnings.every((warning) => warning.severity === "warning")).toBe(true);
  });

  it("prints warnings after the summary and exits 0 when nothing is an error", async () => {
    const file = "test/__fixtures__/config/Pulumi.warnings.yaml";
    const { code, stdout, stderr } = await stepwise("validate", "--file", file);
    expect(code).toBe(0);
    expect(stdout).toContain("Pulumi.warnings.yaml is valid");
    expect(stderr).toMatch(/2 warnings/);
    expect(stderr).toMatch(
      /⚠ gateways\[0\]\.routes\.default\.steps\[1\]\.cacheTtl \(line 13\): step 1 of route "default" sets cacheTtl: 0, which dynamic\/default cannot express/,
    );
    const json = await stepwise("validate", "--file", file, "--json");
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { ok: boolean; warnings: Entry[] };
    expect(report.ok).toBe(true);
    expect(report.warnings.map((warning) => [warning.severity, warning.path])).toEqual([
      ["warning", "gateways[0].routes.default.deadlineMs"],
      ["warning", "gateways[0].routes.default.steps[1].cacheTtl"],
    ]);
  });

  it("warns about a step on a retiring model, at its YAML line, naming the replacement (exit 0)", async () => {
    const { code, stderr } = await stepwise(
      "validate",
      "--file",
      "test/__fixtures__/config/Pulumi.retiring.yaml",
    );
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /⚠ gateways\[0\]\.routes\.default\.steps\[1\]\.model \(line 11\): .*uses anthropic\/claude-3-5-sonnet, which anthropic retires on 2999-01-01 \(in \d+ days\): replace it with anthropic\/claude-sonnet-4-5 before then/,
    );
  });

  it("refuses a step on a model retired since, naming the replacement (exit 1)", async () => {
    const { code, stderr } = await stepwise(
      "validate",
      "--file",
      "test/__fixtures__/config/Pulumi.retired.yaml",
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /✖ gateways\[0\]\.routes\.default\.steps\[1\]\.model \(line 11\): .*which anthropic retired on 2020-01-01, so its calls fail: replace it with anthropic\/claude-sonnet-4-5/,
    );
  });

  it("passes the dev stack with no error and no warning", async () => {
    const { code, stdout, stderr } = await stepwise("validate", "--stack", "dev");
    expect(code).toBe(0);
    expect(stdout).toMatch(/route summarise: .* \(universal only\)/);
    expect(stdout).toMatch(/gateway chat-dynamic .*auth on/);
    expect(stderr).toBe("");
  });
});
