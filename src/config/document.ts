/**
 * @module
 * What is wrong with a user-written document (stack configs, fault schedules, demo scenarios,
 * the Worker's view), every problem located: the path of each bad field, its line, what is wrong
 * and how to fix it, in file order. The YAML reader that finds the lines is `yaml-document.ts`
 * (apart, so the companion Worker, which reports its view's problems, never bundles the parser). zod's own
 * wording ("expected object, received null") becomes a sentence about the field and what was
 * found there; an unknown field, or a value that must be one of a few names, gets the closest
 * name ("did you mean …?"); and one mistake makes one problem.
 */
import type { z } from "zod";
import { humanMessage, unknownFieldMessage, type WordingOptions } from "./issue-wording.ts";

export { closestName, editDistance } from "./suggest.ts";

/** One problem in a document. */
export interface DocumentIssue {
  /** Dotted path of the bad field, e.g. `gateways[0].cache.ttl`; empty for the whole document. */
  readonly path: string;
  /** What is wrong and how to fix it. */
  readonly message: string;
  /** 1-based line in the source file, when known. */
  readonly line?: number;
}

/** Maps a field path to the 1-based line of the deepest node on it that exists. */
export type Locate = (path: readonly PropertyKey[]) => number | undefined;

/** How `documentIssues` words and places each issue. */
export interface IssueOptions extends WordingOptions {
  readonly locate?: Locate;
  /** The message for unknown fields, replacing the schema-based one. */
  readonly unknownFields?: (keys: readonly string[]) => string;
}

/** zod issues as document issues, in file order; an unknown field is one issue per field. */
export function documentIssues(
  issues: readonly z.core.$ZodIssue[],
  options: IssueOptions = {},
): DocumentIssue[] {
  return sortByLine(
    issues.flatMap((issue) => {
      const path = issue.path as PropertyKey[];
      if (issue.code === "unrecognized_keys") {
        if (options.unknownFields)
          return [locatedIssue(path, options.unknownFields(issue.keys), options.locate)];
        return issue.keys.map((key) =>
          locatedIssue([...path, key], unknownFieldMessage(path, key, options), options.locate),
        );
      }
      return [locatedIssue(path, humanMessage(issue, options), options.locate)];
    }),
  );
}

/** One issue at a path, with its line when the document knows it. */
export function locatedIssue(
  path: readonly PropertyKey[],
  message: string,
  locate?: Locate,
): DocumentIssue {
  const line = locate?.(path);
  return line === undefined
    ? { path: formatPath(path), message }
    : { path: formatPath(path), message, line };
}

/**
 * Shape issues and cross-field issues as one list, one problem per mistake: a cross-field issue
 * at a path that already has a shape issue, or about a field that has one, is a consequence of it
 * (a provider that does not exist has no key either), so only the shape issue stays.
 */
export function mergeIssues(
  shapeIssues: readonly DocumentIssue[],
  crossFieldIssues: readonly DocumentIssue[],
): DocumentIssue[] {
  const badPaths = shapeIssues.map((issue) => issue.path).filter((path) => path !== "");
  // A cross-field check that names, in its message, a field the shape already rejects (the
  // list of key providers is not a list) was thrown off by that field: one mistake.
  const consequence = (issue: DocumentIssue) =>
    badPaths.some(
      (path) =>
        issue.path === path ||
        new RegExp(`(^|[^\\w.\\[])${escapeRegExp(path)}($|[^\\w\\[])`).test(issue.message),
    );
  return sortByLine([...shapeIssues, ...crossFieldIssues.filter((issue) => !consequence(issue))]);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Issues in file order, so they read top to bottom alongside the file; unlocated ones last. */
export function sortByLine(issues: readonly DocumentIssue[]): DocumentIssue[] {
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort(
      (a, b) =>
        (a.issue.line ?? Number.MAX_SAFE_INTEGER) - (b.issue.line ?? Number.MAX_SAFE_INTEGER) ||
        a.index - b.index,
    )
    .map(({ issue }) => issue);
}

/** `Pulumi.dev.yaml: 2 problems in the Stepwise config` and one `✖ path (line n): message` each. */
export function formatIssues(
  source: string,
  subject: string,
  issues: readonly DocumentIssue[],
): string {
  const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
  const lines = issues.map((issue) => {
    const where = issue.path === "" ? "(top level)" : issue.path;
    const at = issue.line === undefined ? "" : ` (line ${issue.line})`;
    return `  ✖ ${where}${at}: ${issue.message}`;
  });
  return [`${source}: ${count} in the ${subject}`, ...lines].join("\n");
}

/** `gateways[0].routes.default.steps[1]` from `["gateways", 0, "routes", "default", "steps", 1]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, segment) => {
    if (typeof segment === "number") return `${text}[${segment}]`;
    const name = String(segment);
    const safe = /^[A-Za-z_$][\w$-]*$/.test(name) ? name : JSON.stringify(name);
    return text === "" ? safe : `${text}.${safe}`;
  }, "");
}
