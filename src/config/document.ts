/**
 * @module
 * YAML and JSON documents with every problem located: the one way Stepwise reads a user-written
 * file (stack configs, fault schedules, demo scenarios) and reports what is wrong with it — the
 * path of each bad field, its line, what is wrong and how to fix it, in file order.
 */
import { isNode, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";

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

export type ReadDocumentResult =
  | { readonly ok: true; readonly value: unknown; readonly locate: Locate }
  | { readonly ok: false; readonly issues: DocumentIssue[] };

/** Parses YAML or JSON text (JSON is YAML), keeping where each node is. */
export function readYamlDocument(text: string): ReadDocumentResult {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: true });
  if (document.errors.length > 0) {
    return {
      ok: false,
      issues: document.errors.map((error) => ({
        path: "",
        message: `not valid YAML or JSON: ${error.message.split("\n")[0]}`,
        ...(error.linePos ? { line: error.linePos[0].line } : {}),
      })),
    };
  }
  const locate: Locate = (path) => {
    for (let length = path.length; length > 0; length--) {
      const node = document.getIn(path.slice(0, length), true);
      if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
    }
    return undefined;
  };
  return { ok: true, value: document.toJS(), locate };
}

export interface IssueOptions {
  readonly locate?: Locate;
  /** The message for unknown fields, e.g. to suggest the field a typo meant. */
  readonly unknownFields?: (keys: readonly string[]) => string;
}

/** zod issues as document issues, in file order. */
export function documentIssues(
  issues: readonly z.core.$ZodIssue[],
  options: IssueOptions = {},
): DocumentIssue[] {
  return sortByLine(
    issues.map((issue) =>
      locatedIssue(
        issue.path as PropertyKey[],
        issue.code === "unrecognized_keys" && options.unknownFields
          ? options.unknownFields(issue.keys)
          : issue.message,
        options.locate,
      ),
    ),
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
