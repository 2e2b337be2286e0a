/**
 * Model churn: a step using a model that `stepwise:models` marks as retiring is a warning before
 * the date and an error from that day on, in every chain, naming the replacement (followed past
 * replacements already retired).
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.ts";
import { findConfigFindings, findModelRetirements } from "../../src/routes/index.ts";

const config = parseConfig({
  accountId: "0123456789abcdef0123456789abcdef",
  gateways: [
    {
      id: "chat",
      routes: {
        assistant: {
          dynamic: false,
          steps: [
            { provider: "anthropic", model: "claude-sonnet-4-5" },
            { provider: "openai", model: "gpt-4o-mini" },
          ],
          chains: { economy: [{ provider: "openai", model: "gpt-3.5-turbo" }] },
          policy: [{ when: { plan: "free" }, use: "economy" }],
        },
      },
    },
  ],
  keys: { providers: ["anthropic", "openai"] },
  models: {
    "openai/gpt-4o-mini": {
      input: 0.15,
      output: 0.6,
      retires: { date: "2026-07-14", replacement: "openai/gpt-4.1-mini" },
    },
    "openai/gpt-3.5-turbo": {
      input: 0.5,
      output: 1.5,
      retires: { date: "2026-01-01", replacement: "openai/gpt-4o-mini" },
    },
  },
});

const day = (text: string) => Date.parse(`${text}T00:00:00Z`);

describe("findModelRetirements", () => {
  it("warns before the date, with the days left and the replacement", () => {
    const findings = findModelRetirements(config, day("2025-12-30"));
    expect(findings).toEqual([
      {
        severity: "warning",
        path: ["gateways", 0, "routes", "assistant", "steps", 1, "model"],
        message:
          'step 1 of route "assistant" (gateway "chat") uses openai/gpt-4o-mini, which openai retires on 2026-07-14 (in 196 days): replace it with openai/gpt-4.1-mini before then',
      },
      {
        severity: "warning",
        path: ["gateways", 0, "routes", "assistant", "chains", "economy", 0, "model"],
        message:
          'step 0 of chain "economy" of route "assistant" (gateway "chat") uses openai/gpt-3.5-turbo, which openai retires on 2026-01-01 (in 2 days): replace it with openai/gpt-4o-mini before then',
      },
    ]);
  });

  it("is an error from the day itself, and skips replacements already retired", () => {
    const findings = findModelRetirements(config, day("2026-07-14"));
    expect(findings.map((finding) => [finding.severity, finding.message])).toEqual([
      [
        "error",
        'step 1 of route "assistant" (gateway "chat") uses openai/gpt-4o-mini, which openai retired on 2026-07-14, so its calls fail: replace it with openai/gpt-4.1-mini',
      ],
      [
        "error",
        'step 0 of chain "economy" of route "assistant" (gateway "chat") uses openai/gpt-3.5-turbo, which openai retired on 2026-01-01, so its calls fail: replace it with openai/gpt-4.1-mini',
      ],
    ]);
  });

  it("is part of the findings validate and the Pulumi preflight report", () => {
    const findings = findConfigFindings(config, { now: day("2026-03-01") });
    expect(findings.map((finding) => finding.severity)).toEqual(["warning", "error"]);
  });
});
