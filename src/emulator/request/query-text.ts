/**
 * @module
 * The text of each universal step's `query` as the client sent it, found by scanning the body
 * once (no second parse), so a step's query is forwarded as its own bytes instead of being
 * re-serialised with `JSON.stringify`. The body must already have passed `JSON.parse`; where the
 * scan is unsure (a key written with escapes, a shape that is not steps), it answers `undefined`
 * for that step and the caller serialises the parsed value as before.
 */

const whitespace = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * For a universal body (an array of steps or one step) that `JSON.parse` accepted, the raw text of
 * each step's `query` value, by step index (`undefined` where not found with certainty). As with
 * `JSON.parse`, the last of duplicate `query` keys wins.
 * @example
 * queryTexts('[{"provider":"openai","query":{"model":"m" }}]'); // ['{"model":"m" }']
 */
export function queryTexts(text: string): (string | undefined)[] {
  const scan = new Scanner(text);
  scan.skipWhitespace();
  if (scan.peek() === 0x7b) return [scan.stepQuery()];
  if (scan.peek() !== 0x5b) return [];
  const queries: (string | undefined)[] = [];
  scan.index++;
  scan.skipWhitespace();
  if (scan.peek() === 0x5d) return queries;
  for (;;) {
    scan.skipWhitespace();
    queries.push(scan.peek() === 0x7b ? scan.stepQuery() : scan.skipValue());
    scan.skipWhitespace();
    if (scan.peek() !== 0x2c) return queries;
    scan.index++;
  }
}

/** A cursor over JSON text known to be valid. */
class Scanner {
  index = 0;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  peek(): number {
    return this.#text.charCodeAt(this.index);
  }

  skipWhitespace(): void {
    while (whitespace.has(this.#text.charCodeAt(this.index))) this.index++;
  }

  /** Reads an object (cursor on `{`); returns its `query` member's text, if certain. */
  stepQuery(): string | undefined {
    let query: string | undefined;
    let certain = true;
    this.index++;
    this.skipWhitespace();
    if (this.peek() === 0x7d) {
      this.index++;
      return undefined;
    }
    for (;;) {
      this.skipWhitespace();
      const keyStart = this.index + 1;
      this.skipValue();
      const key = this.#text.slice(keyStart, this.index - 1);
      // A key with escapes might spell `query`; then nothing is certain.
      if (key.includes("\\")) certain = false;
      this.skipWhitespace();
      this.index++; // the colon
      this.skipWhitespace();
      const valueStart = this.index;
      this.skipValue();
      if (key === "query") query = this.#text.slice(valueStart, this.index);
      this.skipWhitespace();
      const next = this.peek();
      this.index++;
      if (next !== 0x2c) break;
    }
    return certain ? query : undefined;
  }

  /** Moves past one value (string, object, array or literal); returns undefined (no query). */
  skipValue(): undefined {
    const text = this.#text;
    const first = text.charCodeAt(this.index);
    if (first === 0x22) {
      this.#skipString();
      return undefined;
    }
    if (first === 0x7b || first === 0x5b) {
      let depth = 0;
      do {
        const code = text.charCodeAt(this.index);
        if (code === 0x22) {
          this.#skipString();
          continue;
        }
        if (code === 0x7b || code === 0x5b) depth++;
        else if (code === 0x7d || code === 0x5d) depth--;
        this.index++;
      } while (depth > 0 && this.index < text.length);
      return undefined;
    }
    // A number or a literal: up to the next delimiter.
    while (this.index < text.length) {
      const code = text.charCodeAt(this.index);
      if (code === 0x2c || code === 0x7d || code === 0x5d || whitespace.has(code)) break;
      this.index++;
    }
    return undefined;
  }

  /** Cursor on an opening quote; moves past the closing one. */
  #skipString(): void {
    const text = this.#text;
    this.index++;
    while (this.index < text.length) {
      const code = text.charCodeAt(this.index);
      if (code === 0x5c) this.index += 2;
      else if (code === 0x22) {
        this.index++;
        return;
      } else this.index++;
    }
  }
}
