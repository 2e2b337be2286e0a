/**
 * @module
 * How `stepwise validate` prints a verdict: GitHub Actions annotations (`--format github`), the
 * warnings block after the summary, and the JSON report (`--json`).
 *
 * An annotation is a workflow command, as GitHub documents it
 * (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands):
 * `::error file={name},line={line},endLine={endLine},title={title}::{message}` "creates an error
 * message and prints the message to the log. This message will create an annotation, which can
 * associate the message with a particular file in your repository"; `::warning …` likewise. Values
 * are escaped as the runner reads them (actions/toolkit `packages/core/src/command.ts`): `%`, CR
 * and LF in the message; also `:` and `,` in a property.
 */
import pc from "picocolors";
import type { LocatedFinding } from "../../config/findings.ts";

/** `%`, CR and LF escaped, as in a workflow command's message. */
export function escapeAnnotationData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A workflow command property: the message's escapes, and `:` and `,`. */
export function escapeAnnotationProperty(text: string): string {
  return escapeAnnotationData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** One `::error …::` or `::warning …::` line per problem, on the file and line it is about. */
export function githubAnnotations(source: string, problems: readonly LocatedFinding[]): string[] {
  return problems.map((problem) => {
    const properties = [
      `file=${escapeAnnotationProperty(source)}`,
      ...(problem.line === undefined ? [] : [`line=${problem.line}`]),
      `title=${escapeAnnotationProperty(problem.path || "(top level)")}`,
    ];
    return `::${problem.severity} ${properties.join(",")}::${escapeAnnotationData(problem.message)}`;
  });
}

/** Warnings after the summary; `strict` says they fail the command. */
export function warningsText(lines: readonly string[], strict: boolean): string {
  const count = lines.length === 1 ? "1 warning" : `${lines.length} warnings`;
  const verdict = strict
    ? pc.red(`${count}, and --strict makes warnings fail:`)
    : pc.yellow(`${count}: valid, but once deployed it behaves differently from what it says`);
  return ["", verdict, ...lines].join("\n");
}

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}
