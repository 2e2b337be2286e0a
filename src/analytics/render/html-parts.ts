/**
 * @module
 * The pieces every table of the HTML page is built from: a figure cell carrying `data-figure`
 * and the raw `data-value`, the key cells of a group, and a captioned table (a `#` before a
 * column title right-aligns it).
 */
import type { Dimension, GroupKey } from "../dimensions.ts";
import { escapeHtml } from "./escape.ts";
import { keyValue } from "./format.ts";

/**
 * One figure cell: its figure name, raw value (null: not known), display text, and for a count
 * shown with its share, the raw share (`data-share`).
 */
export type CellSpec = {
  figure: string;
  value: number | string | null;
  text: string;
  share?: number | null;
};

/** A right-aligned figure cell. */
export function cell(spec: CellSpec): string {
  const share =
    spec.share === undefined || spec.share === null ? "" : ` data-share="${spec.share}"`;
  return `<td class="num" data-figure="${spec.figure}" data-value="${escapeHtml(String(spec.value))}"${share}>${escapeHtml(spec.text)}</td>`;
}

/** The key cells of a row, one per dimension. */
export function keyCells(row: { key: GroupKey }, dimensions: readonly Dimension[]): string {
  return dimensions
    .map(
      (dimension) =>
        `<td class="key" data-dimension="${escapeHtml(dimension)}">${escapeHtml(keyValue(row.key, dimension))}</td>`,
    )
    .join("");
}

/** A table with a caption (`<h2>`) in a scrolling wrapper. */
export function table(id: string, caption: string, head: string[], rows: string[]): string {
  const header = head
    .map(
      (title) =>
        `<th${title.startsWith("#") ? ' class="num"' : ""}>${escapeHtml(title.replace(/^#/, ""))}</th>`,
    )
    .join("");
  return `<h2>${escapeHtml(caption)}</h2>\n<div class="table-wrap"><table id="${id}"><thead><tr>${header}</tr></thead><tbody>\n${rows.join("\n")}\n</tbody></table></div>`;
}
