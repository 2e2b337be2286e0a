import { describe, expect, it } from "vitest";
import { ConfigError, parseConfigText } from "../../src/config/index.ts";

/** A stack file whose `default` route has `hedge` as given (YAML flow text). */
function stack(hedge: string): string {
  return [
    "config:",
    '  stepwise:accountId: "0123456789abcdef0123456789abcdef"',
    "  stepwise:gateways:",
    "    - id: chat-prod",
    "      routes:",
    "        default:",
    "          steps:",
    "            - { provider: anthropic, model: claude-sonnet-4-5 }",
    "            - { provider: openai, model: gpt-4o-mini }",
    `          hedge: ${hedge}`,
    "  stepwise:keys: { providers: [anthropic, openai] }",
    "",
  ].join("\n");
}

function issuesOf(text: string): ConfigError["issues"] {
  try {
    parseConfigText(text, "Pulumi.test.yaml");
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as ConfigError).issues;
  }
  throw new Error("expected the config to be refused");
}

describe("a route's hedge", () => {
  it("reads { afterMs, maxExtraCostPerHour }", () => {
    const config = parseConfigText(
      stack("{ afterMs: 2000, maxExtraCostPerHour: 0.5 }"),
      "Pulumi.test.yaml",
    );
    expect(config.gateways[0]!.routes.default!.hedge).toEqual({
      afterMs: 2000,
      maxExtraCostPerHour: 0.5,
    });
  });

  it("refuses a hedge sooner than 50 ms and a negative cap, each with its line and the fix", () => {
    const issues = issuesOf(stack("{ afterMs: 10, maxExtraCostPerHour: -1 }"));
    expect(issues).toEqual([
      {
        path: "gateways[0].routes.default.hedge.afterMs",
        line: 10,
        message: expect.stringContaining("at least 50 ms"),
      },
      {
        path: "gateways[0].routes.default.hedge.maxExtraCostPerHour",
        line: 10,
        message: expect.stringContaining("0 or more (USD per hour)"),
      },
    ]);
  });

  it("requires the cost cap and names an unknown field", () => {
    const missing = issuesOf(stack("{ afterMs: 2000 }"));
    expect(missing).toEqual([
      expect.objectContaining({
        path: "gateways[0].routes.default.hedge.maxExtraCostPerHour",
        line: 10,
        message: expect.stringMatching(/required.*e\.g\. 0\.5/),
      }),
    ]);
    const unknown = issuesOf(stack("{ afterMs: 2000, maxExtraCostPerHour: 1, delay: 5 }"));
    expect(unknown[0]).toMatchObject({ path: "gateways[0].routes.default.hedge.delay", line: 10 });
    expect(unknown[0]!.message).toMatch(/delay/);
  });
});
