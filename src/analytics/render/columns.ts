/**
 * @module
 * Aligned text columns for the terminal: pads on visible width (ANSI colour codes ignored),
 * right-aligns numbers, and colours after padding so alignment survives colour.
 */
import pc from "picocolors";

/** One column: title, alignment, and an optional colour for its cells. */
export interface Column {
  readonly title: string;
  readonly align?: "left" | "right";
}

/** A cell: plain text, or text plus a colour function applied after padding. */
export type Cell = string | { readonly text: string; readonly color: (text: string) => string };

/** Lines of a table: a bold header row and the rows, columns separated by two spaces. */
export function renderColumns(
  columns: readonly Column[],
  rows: ReadonlyArray<readonly Cell[]>,
): string[] {
  const widths = columns.map((column, index) =>
    Math.max(column.title.length, ...rows.map((row) => textOf(row[index]).length)),
  );
  const line = (cells: readonly Cell[], header: boolean): string =>
    columns
      .map((column, index) => {
        const cell = cells[index] ?? "";
        const text = textOf(cell);
        const width = widths[index] ?? 0;
        const padded = column.align === "right" ? text.padStart(width) : text.padEnd(width);
        if (header) return pc.bold(padded);
        return typeof cell === "string" ? padded : cell.color(padded);
      })
      .join("  ")
      .trimEnd();
  return [
    line(
      columns.map((column) => column.title),
      true,
    ),
    ...rows.map((row) => line(row, false)),
  ];
}

function textOf(cell: Cell | undefined): string {
  if (cell === undefined) return "";
  return typeof cell === "string" ? cell : cell.text;
}
