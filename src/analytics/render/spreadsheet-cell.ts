/**
 * @module
 * One CSV cell that a spreadsheet opens as the text it is, never as a formula that runs
 * (CSV injection, OWASP's "CSV Injection" page), without renaming the model ids analysts group by.
 *
 * OWASP's advice is to treat a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage
 * return as a formula and to neutralise it: wrap it in double quotes and prefix it with a single
 * quote. Applied blindly that turns every Workers AI model (`@cf/meta/llama-3.1-8b-instruct`) into
 * `'@cf/meta/llama-3.1-8b-instruct`, so a pivot over the CSV no longer matches the config. The rule
 * here guards every such cell except a **plain id**: `@` then a namespace and `/`-separated path of
 * letters, digits and `.`, `_`, `-`, `:` only (the shape of `@cf/…` and `@hf/…` model ids). Such a
 * cell holds no parenthesis (so no function call: no `HYPERLINK`, `WEBSERVICE`, `IMPORTXML`), no
 * `|` (no DDE command), no `!` (no reference into another sheet or workbook), no quote, space,
 * `,` `;` `&` `=` `<` `>` or `+`: an application that insists on evaluating it gets at worst a
 * `#NAME?` error, never a request or a command. Everything else that starts like a formula keeps
 * OWASP's guard (`'` inside double quotes), and control characters are shown by the caller as
 * visible escapes before they reach here.
 */
import { csvField } from "../sources/csv.ts";

/** A cell a spreadsheet would start evaluating as a formula. */
const formulaStart = /^[=+\-@\t\r]/;

/** A model id such as `@cf/meta/llama-3.1-8b-instruct`: see the module doc. */
const plainId = /^@[A-Za-z0-9][A-Za-z0-9._:-]*(?:\/[A-Za-z0-9._:-]+)+$/;

/** True when a text cell gets the `'` guard. */
export function needsFormulaGuard(text: string): boolean {
  return formulaStart.test(text) && !plainId.test(text);
}

/** A CSV field that no spreadsheet runs as a formula (see the module doc). */
export function spreadsheetCell(value: string | number | boolean | null | undefined): string {
  if (typeof value !== "string") return csvField(value);
  if (!needsFormulaGuard(value)) return csvField(value);
  return `"'${value.replaceAll('"', '""')}"`;
}
