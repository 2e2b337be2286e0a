/**
 * The config fields of the Worker's key pools and health (issue #14 items 3–5): per-key caps,
 * per-model slowMs and the probation period, each validated with its YAML line and a fix hint.
 */
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfigText } from "../../src/config/index.ts";

const stack = (keys: string, worker = "") => `config:
  stepwise:accountId: "0123456789abcdef0123456789abcdef"
  stepwise:gateways:
    - id: chat
      routes:
        default:
          - { provider: openai, model: gpt-4o-mini }
  stepwise:keys:
${keys}
${worker}`;

function problems(text: string) {
  try {
    parseConfigText(text, "Pulumi.test.yaml");
  } catch (error) {
    if (ConfigError.isInstance(error)) return error.issues;
    throw error;
  }
  return [];
}

describe("keys.caps and worker.healthProbe", () => {
  it("accepts per-key caps, per-model slowMs and a probation period", () => {
    const config = parseConfigText(
      stack(
        "    providers: [openai]\n    caps:\n      openai: { rpm: 500, tpm: 200000 }",
        "  stepwise:worker:\n    healthProbe:\n      enabled: true\n      slowMsPerModel: { openai: 3000, openai/gpt-4o: 8000 }\n      probationSeconds: 600",
      ),
      "Pulumi.test.yaml",
    );
    expect(config.keys.caps).toEqual({ openai: { rpm: 500, tpm: 200000 } });
    expect(config.worker.healthProbe).toMatchObject({
      slowMsPerModel: { openai: 3000, "openai/gpt-4o": 8000 },
      probationSeconds: 600,
    });
  });

  it("names the line and the fix of a bad cap", () => {
    expect(problems(stack("    providers: [openai]\n    caps:\n      openai: { rpm: 0 }"))).toEqual(
      [
        {
          path: "keys.caps.openai.rpm",
          line: 11,
          message: "rpm must be at least 1; leave it out for no cap",
        },
      ],
    );
    expect(problems(stack("    providers: [openai]\n    caps:\n      openai: {}"))).toEqual([
      expect.objectContaining({
        path: "keys.caps.openai",
        line: 11,
        message: expect.stringContaining("give rpm, tpm or both"),
      }),
    ]);
  });

  it("caps for a provider whose keys the Worker does not hold are an error naming the fix", () => {
    expect(
      problems(stack("    providers: [openai]\n    caps:\n      anthropic: { rpm: 10 }")),
    ).toEqual([
      expect.objectContaining({
        path: "keys.caps.anthropic",
        line: 11,
        message: expect.stringContaining("add it there or remove this entry"),
      }),
    ]);
  });

  it("names the line of a bad probation period or slowMs key", () => {
    const issues = problems(
      stack(
        "    providers: [openai]",
        "  stepwise:worker:\n    healthProbe:\n      slowMsPerModel: { OpenAI: 10 }\n      probationSeconds: 100000",
      ),
    );
    expect(issues.map((issue) => [issue.path, issue.line])).toEqual([
      ["worker.healthProbe.slowMsPerModel.OpenAI", 12],
      ["worker.healthProbe.probationSeconds", 13],
    ]);
    expect(issues[1]!.message).toBe("probationSeconds must be 0 to 86400 (a day)");
  });
});
