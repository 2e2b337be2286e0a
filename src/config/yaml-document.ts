/**
 * @module
 * The one way Stepwise reads a user-written YAML or JSON file: the value and, for each field
 * path, its line (`Locate`), or the syntax problems located. What is wrong with the value is
 * worded by `document.ts`.
 */
import { isMap, isNode, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import type { DocumentIssue, Locate } from "./document.ts";

/** A document read: its value and where each field is, or why it could not be read. */
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
      issues: document.errors.map((error) => {
        // The pretty message's first line ends with " at line 3, column 1:", before a snippet.
        const first = error.message.split("\n")[0] ?? error.message;
        const what = first.replace(/ at line \d+, column \d+:?\s*$/, "").replace(/:\s*$/, "");
        const column = error.linePos ? `, column ${error.linePos[0].col}` : "";
        return {
          path: "",
          message: `not valid YAML or JSON${column}: ${what}. Check the indentation, quotes and brackets there.`,
          ...(error.linePos ? { line: error.linePos[0].line } : {}),
        };
      }),
    };
  }
  const lineOf = (offset: number) => lineCounter.linePos(offset).line;
  // The line of a field is the line of its key (where a reader looks for it), which for a block
  // mapping is the line above its value; for a list item, the item's own line. A path that goes
  // deeper than the document does ends at the deepest part that exists.
  const locate: Locate = (path) => {
    let node: unknown = document.contents;
    let line: number | undefined;
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && item.key.value === segment);
        if (pair === undefined) break;
        if (isNode(pair.key) && pair.key.range) line = lineOf(pair.key.range[0]);
        node = pair.value;
      } else if (isSeq(node)) {
        // A name on a list is a wrapper the schema adds (a route written as a bare list of
        // steps is read as `{ steps }`): the list itself is the next step of the path.
        if (typeof segment !== "number") continue;
        const item = node.items[segment];
        if (!isNode(item) || !item.range) break;
        line = lineOf(item.range[0]);
        node = item;
      } else break;
    }
    return line;
  };
  return { ok: true, value: document.toJS(), locate };
}
