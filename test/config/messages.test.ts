/**
 * What `stepwise validate` says about the mistakes people make, read from stack files the way a
 * user writes them: each problem on the line of the field to fix, the name a typo meant (fields,
 * top-level keys, providers, model prices), one problem per mistake, and sentences instead of
 * zod's wording for wrong types, an empty file, a missing `stepwise:` namespace and bad YAML.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, type ConfigIssue, parseConfigText } from "../../src/config/index.ts";
import { closestName, editDistance } from "../../src/config/suggest.ts";

const devStack = readFileSync(path.resolve(import.meta.dirname, "../../Pulumi.dev.yaml"), "utf8");

function issuesOf(text: string): ConfigIssue[] {
  try {
    parseConfigText(text, "Pulumi.test.yaml");
  } catch (error) {
    if (ConfigError.isInstance(error)) return [...error.issues];
    throw error;
  }
  throw new Error("expected the config to be rejected");
}

/** The 1-based line of the first line of `text` containing `needle`. */
function lineOf(text: string, needle: string): number {
  return text.split("\n").findIndex((line) => line.includes(needle)) + 1;
}

/** The dev stack with one edit. */
function devWith(from: string, to: string): string {
  expect(devStack).toContain(from);
  return devStack.replace(from, to);
}

describe("validate points at the fix", () => {
  it("reports a typo in a top-level key at its own line, with the key meant", () => {
    const text = devWith("stepwise:models:", "stepwise:model:");
    expect(issuesOf(text)).toEqual([
      {
        path: "model",
        line: lineOf(text, "stepwise:model:"),
        message: 'unknown key "stepwise:model": did you mean "stepwise:models"?',
      },
    ]);
  });

  it("suggests the field a misspelt field meant, on the line of that field", () => {
    const text = devWith("cacheTtl: 0", "cachTtl: 0");
    expect(issuesOf(text)).toEqual([
      {
        path: "gateways[0].routes.long-context.steps[3].cachTtl",
        line: lineOf(text, "cachTtl"),
        message: 'unknown field "cachTtl": did you mean "cacheTtl"?',
      },
    ]);
  });

  it("lists the fields there are when nothing is close", () => {
    const [issue] = issuesOf(devWith("cacheTtl: 0", "colour: red"));
    expect(issue?.message).toBe(
      'unknown field "colour": fields here are provider, model, timeoutMs, retries, retryDelayMs, backoff, cacheTtl, firstTokenTimeoutMs, idleTimeoutMs',
    );
  });

  it("makes a misspelt provider one problem, with the provider meant", () => {
    const text = devWith("provider: groq", "provider: gorq");
    const issues = issuesOf(text);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      path: "gateways[0].routes.fast.steps[0].provider",
      line: lineOf(text, "gorq"),
      message: expect.stringMatching(/^unknown provider "gorq": .* Did you mean "groq"\?$/),
    });
  });

  it("names the model a price was meant for when a route uses it without one", () => {
    const text = devWith("openai/gpt-4o-mini: {", "openai/gpt-4o-mni: {");
    expect(issuesOf(text)).toEqual([
      {
        path: 'models."openai/gpt-4o-mni"',
        line: lineOf(text, "gpt-4o-mni"),
        message: expect.stringContaining('did you mean "openai/gpt-4o-mini"?'),
      },
    ]);
  });

  it("suggests the value an enum misspelling meant", () => {
    const [issue] = issuesOf(devWith("technique: sliding", "technique: slidin"));
    expect(issue?.message).toBe('technique must be "fixed" or "sliding". Did you mean "sliding"?');
  });

  it("says what a field must be and what it found, in words", () => {
    const text = [
      "config:",
      '  stepwise:accountId: "0123456789abcdef0123456789abcdef"',
      "  stepwise:gateways:",
      "    - id: a",
      "      cache: null",
      '      authentication: "yes"',
      "      routes:",
      "        default:",
      '          - { provider: openai, model: gpt-4o-mini, timeoutMs: "300" }',
      "  stepwise:keys: { providers: openai }",
      "  stepwise:worker: { gatewayUrl: nope }",
    ].join("\n");
    expect(issuesOf(text)).toEqual([
      {
        path: "gateways[0].cache",
        line: 5,
        message: "cache must be a mapping of fields (name: value), not empty (null)",
      },
      {
        path: "gateways[0].authentication",
        line: 6,
        message: 'authentication must be true or false, not the text "yes"',
      },
      {
        path: "gateways[0].routes.default.steps[0].timeoutMs",
        line: 9,
        message: 'timeoutMs must be a number, not the text "300"',
      },
      // One mistake: with keys.providers not a list, no step is reported as having no key.
      {
        path: "keys.providers",
        line: 10,
        message: 'providers must be a list, not the text "openai"',
      },
      {
        path: "worker.gatewayUrl",
        line: 11,
        message: 'gatewayUrl must be a URL such as https://example.com, not the text "nope"',
      },
    ]);
  });

  it("never repeats a secret's value when it has the wrong type", () => {
    const text = devWith(
      "stepwise:rotateToken:",
      "stepwise:rotateToken: 918273645\n  stepwise:unused:",
    );
    const issues = issuesOf(text);
    const rotateToken = issues.find((issue) => issue.path === "rotateToken");
    expect(rotateToken?.message).toContain("a number (not shown: it may be a secret)");
    expect(JSON.stringify(issues)).not.toContain("918273645");
  });

  it("says a file is empty", () => {
    expect(issuesOf("")).toEqual([
      {
        path: "",
        message: expect.stringMatching(/^the file is empty: a Stepwise config needs at least/),
      },
    ]);
  });

  it("says a stack file has no stepwise: keys, and which namespace was probably meant", () => {
    const text = devStack.replaceAll("stepwise:", "stepwse:");
    expect(issuesOf(text)).toEqual([
      {
        path: "",
        line: lineOf(text, "config:"),
        message: expect.stringMatching(
          /^no stepwise: keys under config: \(it has cloudflare:apiToken, stepwse:accountId.*\); did you mean "stepwise:" instead of "stepwse:"\?/,
        ),
      },
    ]);
  });

  it("reports a YAML syntax error with its line and column, as a sentence", () => {
    const [issue] = issuesOf("config:\n  stepwise:gateways: [\n  foo: bar\n");
    expect(issue?.line).toBe(3);
    expect(issue?.message).toMatch(/^not valid YAML or JSON, column \d+: .+\. Check the /);
    expect(issue?.message).not.toMatch(/:\s*$/);
  });
});

describe("closest names", () => {
  it("counts a swap of two neighbours as one edit", () => {
    expect(editDistance("gorq", "groq")).toBe(1);
    expect(editDistance("cachTtl", "cacheTtl")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
  });

  it("suggests only names within a slip of what was written", () => {
    expect(closestName("gorq", ["openai", "groq", "grok"])).toBe("groq");
    expect(closestName("acme", ["openai", "groq", "grok"])).toBeUndefined();
    expect(closestName("groq", ["groq", "grok"])).toBeUndefined();
  });
});
