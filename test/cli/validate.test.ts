import { describe, expect, it } from "vitest";
import { stepwise } from "../helpers/stepwise-cli.ts";

describe("stepwise validate", () => {
  it("exits 0 with a summary of gateways, routes and key providers for the dev stack", async () => {
    const { code, stdout } = await stepwise("validate", "--stack", "dev");
    expect(code).toBe(0);
    expect(stdout).toContain("Pulumi.dev.yaml is valid");
    expect(stdout).toMatch(/gateway chat-prod .*auth on.*cache 300s.*rate 600\/60s sliding/);
    expect(stdout).toMatch(
      /route default: anthropic\/claude-sonnet-4-5 15s → openai\/gpt-4o-mini 10s → workers-ai\/@cf\/meta\/llama-3.1-8b-instruct 5s/,
    );
    expect(stdout).toMatch(/keys in the companion Worker: anthropic, openai/);
  });

  it("exits 1 and prints every problem of a broken file", async () => {
    const { code, stderr } = await stepwise(
      "validate",
      "--file",
      "test/__fixtures__/config/Pulumi.broken.yaml",
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/\d+ problems/);
    expect(stderr).toContain("gateways[0].cache.ttl (line 6)");
    expect(stderr).toContain('unknown field "tmeout"');
    expect(stderr).not.toMatch(/at .*\.ts:\d+/);
  });

  it("prints the problems as JSON with --json", async () => {
    const { code, stdout } = await stepwise(
      "validate",
      "--file",
      "test/__fixtures__/config/Pulumi.broken.yaml",
      "--json",
    );
    expect(code).toBe(1);
    const parsed = JSON.parse(stdout) as { ok: boolean; issues: { path: string }[] };
    expect(parsed.ok).toBe(false);
    expect(parsed.issues.map((issue) => issue.path)).toContain("accountId");
  });

  it("has --help with examples", async () => {
    const { code, stdout } = await stepwise("validate", "--help");
    expect(code).toBe(0);
    expect(stdout).toContain("--stack <name>");
    expect(stdout).toContain("Examples:");
  });

  it("rejects --stack together with --file", async () => {
    const { code, stderr } = await stepwise("validate", "--stack", "dev", "--file", "x.yaml");
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/cannot be used with/);
  });
});
