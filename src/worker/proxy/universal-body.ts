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
  return rewriteSteps(
    text,
    headers.map((stepHeaders, step) => ({ step, headers: stepHeaders })),
  );
}

/** One step of the body sent upstream: a copy of the app's step `step` with its own headers. */
export interface StepCopy {
  readonly step: number;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The body as the given copies of the app's steps, in order (a step may appear several times,
 * once per key of its provider's pool, or not at all), each with its `headers` replaced.
 * @param text a JSON array of objects (already validated)
 */
export function rewriteSteps(text: string, copies: readonly StepCopy[]): string {
  const scanner = new JsonScanner(text);
  const steps: { members: string[]; headersAt: number }[] = [];
  scanner.expect("[");
  while (!scanner.consumeIf("]")) {
    if (steps.length > 0) scanner.expect(",");
    steps.push(readStep(scanner));
  }
  const parts = copies.map(({ step, headers }) => {
    const { members, headersAt } = steps[step]!;
    const replacement = `"headers":${JSON.stringify(headers)}`;
    const written =
      headersAt === -1
        ? [...members, replacement]
        : members.map((member, index) => (index === headersAt ? replacement : member));
    return `{${written.join(",")}}`;
  });
  return `[${parts.join(",")}]`;
}

/** A step's members as written (a second `headers` member dropped), and where `headers` is. */
function readStep(scanner: JsonScanner): { members: string[]; headersAt: number } {
  const members: string[] = [];
  let headersAt = -1;
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
      if (headersAt === -1) {
        headersAt = members.length;
        members.push("");
      }
    } else members.push(`${keyText}:${valueText}`);
  }
  return { members, headersAt };
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
