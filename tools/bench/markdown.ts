/**
 * @module
 * Writes BENCHMARKS.md, pure. Each benchmark owns a block between `<!-- bench:<id> -->` and
 * `<!-- /bench:<id> -->`; a run replaces the blocks it measured and leaves every other line as
 * it was, so hand-written notes around the blocks survive. A block that is not there yet goes
 * right under its `## heading` when the heading exists, else in a new section placed in the
 * benchmarks' order.
 */

/** One generated block of BENCHMARKS.md. */
export interface GeneratedSection {
  /** Stable id, used in the markers: `client-overhead`. */
  readonly id: string;
  /** The `## heading` of the section; empty for the block under the document's title. */
  readonly heading: string;
  /** Markdown between the markers. */
  readonly body: string;
}

/** A section's place in the document order. */
export type SectionPlace = Pick<GeneratedSection, "id" | "heading">;

/** The document's title line. */
export const documentTitle = "# Benchmarks";

/** Column alignment in a table. */
export type Align = "left" | "right";

/**
 * A Markdown table with padded columns (numbers read best right-aligned).
 * @example markdownTable(["run", "median"], [["fetch", "0.41 ms"]], ["left", "right"])
 */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[] = [],
): string {
  const clean = (cell: string) => cell.replaceAll("|", "\\|").replaceAll("\n", " ");
  const widths = headers.map((header, column) =>
    Math.max(3, clean(header).length, ...rows.map((row) => clean(row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${widths
      .map((width, column) => {
        const cell = clean(cells[column] ?? "");
        return align[column] === "right" ? cell.padStart(width) : cell.padEnd(width);
      })
      .join(" | ")} |`;
  const rule = `| ${widths
    .map((width, column) =>
      align[column] === "right" ? `${"-".repeat(width - 1)}:` : "-".repeat(width),
    )
    .join(" | ")} |`;
  return [line(headers), rule, ...rows.map(line)].join("\n");
}

/** The opening marker of a block. */
export function beginMarker(id: string): string {
  return `<!-- bench:${id} -->`;
}

/** The closing marker of a block. */
export function endMarker(id: string): string {
  return `<!-- /bench:${id} -->`;
}

function block(section: GeneratedSection): string {
  return `${beginMarker(section.id)}\n${section.body.trim()}\n${endMarker(section.id)}`;
}

/**
 * Puts the sections into the document (or a new one when `existing` is empty) and returns it.
 * `order` lists every section id in document order; it places sections that are new.
 * @throws Error when a block's markers are unbalanced, so a broken file is never overwritten.
 */
export function updateBenchmarksDocument(
  existing: string,
  sections: readonly GeneratedSection[],
  order: readonly SectionPlace[] = sections,
): string {
  let lines = existing.replaceAll("\r\n", "\n").split("\n");
  if (existing.trim() === "") lines = [documentTitle, ""];
  else if (!lines.some((line) => line.trim() === documentTitle)) {
    lines = [documentTitle, "", ...lines];
  }
  for (const section of sections) lines = placeSection(lines, section, order);
  return `${lines
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}

function placeSection(
  lines: string[],
  section: GeneratedSection,
  order: readonly SectionPlace[],
): string[] {
  const begin = lines.indexOf(beginMarker(section.id));
  const end = lines.indexOf(endMarker(section.id));
  if (begin !== -1 || end !== -1) {
    if (begin === -1 || end === -1 || end < begin) {
      throw new Error(
        `BENCHMARKS.md has an unbalanced block "${section.id}": keep both ${beginMarker(section.id)} and ${endMarker(section.id)}, or remove both.`,
      );
    }
    return [...lines.slice(0, begin), ...block(section).split("\n"), ...lines.slice(end + 1)];
  }
  const body = block(section).split("\n");
  const heading =
    section.heading === ""
      ? lines.findIndex((line) => line.trim() === documentTitle)
      : lines.findIndex((line) => line.trim() === `## ${section.heading}`);
  if (heading !== -1) {
    return [...lines.slice(0, heading + 1), "", ...body, "", ...lines.slice(heading + 1)];
  }
  const later = order.slice(order.findIndex((other) => other.id === section.id) + 1);
  const next = lines.findIndex((line) =>
    later.some((other) => other.heading !== "" && line.trim() === `## ${other.heading}`),
  );
  const added = ["", `## ${section.heading}`, "", ...body, ""];
  return next === -1
    ? [...lines, ...added]
    : [...lines.slice(0, next), ...added.slice(1), "", ...lines.slice(next)];
}
