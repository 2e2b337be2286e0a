/**
 * @module
 * Minimal RFC 4180 CSV: split one record into fields (quoted fields, `""` escapes), and quote a
 * field for writing. Records with line breaks inside quotes are joined by the caller
 * (`isRecordComplete`).
 */

/** Splits one CSV record into its fields. */
export function parseCsvRecord(record: string): string[] {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let index = 0; index < record.length; index += 1) {
    const char = record[index];
    if (quoted) {
      if (char === '"' && record[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      fields.push(field);
      field = "";
    } else field += char;
  }
  fields.push(field);
  return fields;
}

/** False while `text` ends inside a quoted field (the record continues on the next line). */
export function isRecordComplete(text: string): boolean {
  let quotes = 0;
  for (const char of text) if (char === '"') quotes += 1;
  return quotes % 2 === 0;
}

/** Quotes a value for CSV when it needs it. */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
