/**
 * `stepwise validate` as a CI gate (issue #27): every problem in one run, `--strict` makes
 * warnings fail, and `--format github` prints annotations a GitHub Actions runner shows on the
 * pull request. The format is GitHub's, from "Workflow commands for GitHub Actions"
 * (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands):
 *
 *   "Creates an error message and prints the message to the log. This message will create an
 *   annotation, which can associate the message with a particular file in your repository.
 *   Optionally, your message can specify a position within the file."
 *   `::error file={name},line={line},endLine={endLine},title={title}::{message}`
 *   `::warning file={name},line={line},endLine={endLine},title={title}::{message}`
 *
 * and values escaped as the runner unescapes them (actions/toolkit packages/core/src/command.ts:
 * `%` → `%25`, CR → `%0D`, LF → `%0A` in the message; also `:` → `%3A`, `,` → `%2C` in a property).
 */
import { describe, expect, it } from "vitest";
import {
  escapeAnnotationData,
  escapeAnnotationProperty,
  githubAnnotations,
} from "../../src/cli/commands/validate-output.ts";
import { stepwise } from "../helpers/stepwise-cli.ts";

const fiveMistakes = "test/__fixtures__/config/Pulumi.five-mistakes.yaml";
const warningsOnly = "test/__fixtures__/config/Pulumi.warnings.yaml";

/** GitHub's `::{command} {property}={value},…::{message}`, one line. */
const workflowCommand =
  /^::(error|warning) ((?:[a-zA-Z]+=[^,:\n]*)(?:,[a-zA-Z]+=[^,:\n]*)*)::(.*)$/;

interface Annotation {
  command: string;
  properties: Record<string, string>;
  message: string;
}

/** Reads an annotation line as the runner does, unescaping its values. */
function parseAnnotation(line: string): Annotation {
  const match = workflowCommand.exec(line);
  if (!match) throw new Error(`not a workflow command: ${line}`);
  const unescapeValue = (text: string) =>
    text
      .replace(/%0D/g, "\r")
      .replace(/%0A/g, "\n")
      .replace(/%3A/g, ":")
      .replace(/%2C/g, ",")
      .replace(/%25/g, "%");
  const properties = Object.fromEntries(
    match[2]!.split(",").map((pair) => {
      const [key, ...value] = pair.split("=");
      return [key!, unescapeValue(value.join("="))];
    }),
  );
  return { command: match[1]!, properties, message: unescapeValue(match[3]!) };
}

describe("stepwise validate: one run, every problem", () => {
  it("reports five unrelated planted mistakes as five problems, each at its line", async () => {
    const { code, stderr } = await stepwise("validate", "--file", fiveMistakes);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^Pulumi\.five-mistakes\.yaml: 5 problems|: 5 problems in the Stepwise config/m,
    );
    for (const expected of [
      "gateways[0].rateLimit.technique (line 8)",
      'gateways[0].routes.default.steps[0].provider (line 13): unknown provider "opneai"',
      'gateways[0].routes.default.steps[1].provider (line 14): provider "mistral" has no key',
      "gateways[1].cache.ttl (line 17)",
      'gateways[1].routes.assistant.steps[0].provider (line 20): route "assistant" is deployed as the dynamic route',
    ]) {
      expect(stderr).toContain(expected);
    }
    const json = JSON.parse((await stepwise("validate", "--file", fiveMistakes, "--json")).stdout);
    expect(json.ok).toBe(false);
    expect(json.issues).toHaveLength(5);
  });
});

describe("stepwise validate --strict", () => {
  it("fails on warnings (exit 1) and passes them without it (exit 0)", async () => {
    expect((await stepwise("validate", "--file", warningsOnly)).code).toBe(0);
    const strict = await stepwise("validate", "--file", warningsOnly, "--strict");
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain("2 warnings, and --strict makes warnings fail");
  });

  it("keeps --json's shape, with ok false and the warnings listed", async () => {
    const { code, stdout } = await stepwise(
      "validate",
      "--file",
      warningsOnly,
      "--strict",
      "--json",
    );
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ ok: false, code: "config_warnings_strict", issues: [] });
    expect(report.warnings).toHaveLength(2);
  });

  it("passes the dev stack: no error, no warning", async () => {
    const { code } = await stepwise("validate", "--stack", "dev", "--strict", "--format", "github");
    expect(code).toBe(0);
  });
});

describe("stepwise validate --format github", () => {
  it("prints one ::error annotation per problem, on its file and line, as GitHub documents", async () => {
    const { code, stdout } = await stepwise(
      "validate",
      "--file",
      fiveMistakes,
      "--format",
      "github",
    );
    expect(code).toBe(1);
    const lines = stdout.trim().split("\n");
    const annotations = lines.filter((line) => line.startsWith("::")).map(parseAnnotation);
    expect(annotations).toHaveLength(5);
    expect(annotations.every((annotation) => annotation.command === "error")).toBe(true);
    expect(annotations.map((annotation) => annotation.properties.line)).toEqual([
      "8",
      "13",
      "14",
      "17",
      "20",
    ]);
    for (const annotation of annotations) {
      expect(annotation.properties.file).toBe(fiveMistakes);
      expect(annotation.properties.title).toMatch(/^gateways\[\d\]\./);
    }
    expect(annotations[1]!.message).toContain('Did you mean "openai"?');
    expect(lines.at(-1)).toBe(`${fiveMistakes} fails: 5 errors, 0 warnings`);
  });

  it("prints warnings as ::warning, and with --strict they fail the step", async () => {
    const { code, stdout } = await stepwise(
      "validate",
      "--file",
      warningsOnly,
      "--strict",
      "--format",
      "github",
    );
    expect(code).toBe(1);
    const annotations = stdout
      .split("\n")
      .filter((line) => line.startsWith("::"))
      .map(parseAnnotation);
    expect(
      annotations.map((annotation) => [annotation.command, annotation.properties.line]),
    ).toEqual([
      ["warning", "10"],
      ["warning", "13"],
    ]);
  });

  it("annotates a file that cannot be read, with the usage exit code", async () => {
    const { code, stdout } = await stepwise(
      "validate",
      "--file",
      "missing.yaml",
      "--format",
      "github",
    );
    expect(code).toBe(2);
    expect(parseAnnotation(stdout.trim())).toMatchObject({
      command: "error",
      properties: { file: "missing.yaml" },
    });
  });

  it("escapes what would end a property or the command early", () => {
    expect(escapeAnnotationData("50% off\r\nnext")).toBe("50%25 off%0D%0Anext");
    expect(escapeAnnotationProperty("a:b,c%")).toBe("a%3Ab%2Cc%25");
    const [line] = githubAnnotations("dir/Pulumi,odd:name.yaml", [
      { severity: "error", path: "accountId", line: 3, message: "two\nlines: 100%" },
    ]);
    expect(parseAnnotation(line!)).toEqual({
      command: "error",
      properties: { file: "dir/Pulumi,odd:name.yaml", line: "3", title: "accountId" },
      message: "two\nlines: 100%",
    });
  });
});
