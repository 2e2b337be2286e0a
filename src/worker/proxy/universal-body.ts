/**
 * @module
 * Rewrites a universal request body without re-serialising it: each step's `headers` member is
 * replaced (or added) and every other member — the step's `query` payload, its `config` — goes
 * upstream as the app wrote it, byte for byte (numbers past double precision, spacing, key
 * order). The text has already been parsed as JSON and checked for depth, so the scanner here
 * only has to find where each step and member starts and ends.
 */

/**
 * The body with step `i`'s `headers` replaced by `headers[i]`.
 * @param text a JSON array of objects (already validated)
 */
export function replaceStepHeaders(
  text: string,
  headers: readonly Readonly<Record<string, string>>[],
): string {
  const scanner = new JsonScanner(text);
  const parts: string[] = ["["];
  scanner.expect("[");
  let index = 0;
  while (!scanner.consumeIf("]")) {
    if (index > 0) {
      scanner.expect(",");
      parts.push(",");
    }
    parts.push(rewriteStep(scanner, headers[index] ?? {}));
    index++;
  }
  parts.push("]");
  return parts.join("");
}

function rewriteStep(scanner: JsonScanner, headers: Readonly<Record<string, string>>): string {
  const members: string[] = [];
  const replacement = `"headers":${JSON.stringify(headers)}`;
  let replaced = false;
  let first = true;
  scanner.expect("{");
  while (!scanner.consumeIf("}")) {
    if (!first) scanner.expect(",");
    first = false;
    const keyStart = scanner.skipWhitespace();
    const key = scanner.string();
    const keyText = scanner.text.slice(keyStart, scanner.position);
    scanner.expect(":");
    const valueStart = scanner.skipWhitespace();
    scanner.skipValue();
    const valueText = scanner.text.slice(valueStart, scanner.position);
    if (key === "headers") {
      if (!replaced) members.push(replacement);
      replaced = true;
    } else members.push(`${keyText}:${valueText}`);
  }
  if (!replaced) members.push(replacement);
  return `{${members.join(",")}}`;
}

/** A cursor over JSON text that is known to be valid. */
class JsonScanner {
  position = 0;
  constructor(readonly text: string) {}

  skipWhitespace(): number {
    while (/\s/.test(this.text[this.position] ?? "")) this.position++;
    return this.position;
  }

  expect(char: string): void {
    this.skipWhitespace();
    if (this.text[this.position] !== char) {
      throw new SyntaxError(`expected ${char} at ${this.position}`);
    }
    this.position++;
  }

  consumeIf(char: string): boolean {
    this.skipWhitespace();
    if (this.text[this.position] !== char) return false;
    this.position++;
    return true;
  }

  /** Reads a string token and returns its value. */
  string(): string {
    this.skipWhitespace();
    const start = this.position;
    this.position++;
    while (this.text[this.position] !== '"') {
      if (this.text[this.position] === "\\") this.position++;
      this.position++;
    }
    this.position++;
    return JSON.parse(this.text.slice(start, this.position)) as string;
  }

  /** Moves past one value of any kind. */
  skipValue(): void {
    this.skipWhitespace();
    const char = this.text[this.position];
    if (char === '"') {
      this.string();
      return;
    }
    if (char === "{" || char === "[") {
      let depth = 0;
      do {
        const current = this.text[this.position];
        if (current === '"') {
          this.string();
          continue;
        }
        if (current === "{" || current === "[") depth++;
        else if (current === "}" || current === "]") depth--;
        this.position++;
      } while (depth > 0);
      return;
    }
    while (this.position < this.text.length && !/[\s,}\]]/.test(this.text[this.position]!)) {
      this.position++;
    }
  }
}
