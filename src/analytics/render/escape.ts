/**
 * @module
 * Escaping for text and attribute values in the generated HTML and SVG.
 */

/** Escapes `& < > " '` so any string is safe as HTML/SVG text or a quoted attribute value. */
export function escapeHtml(value: string | number): string {
  return String(value)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}
