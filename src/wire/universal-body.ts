/**
 * @module
 * The one scanner of a universal body's text (`POST /v1/{account}/{gateway}`: an array of steps
 * `{provider, endpoint, headers, query, config?}`, or one step alone), used by the emulator and the
 * companion Worker alike. Both forward parts of the body as the app wrote them, byte for byte
 * (a step's `query`, numbers past double precision, spacing, key order), so both need where each
 * step and member starts and ends, not only the parsed value.
 *
 * The text must already have passed `JSON.parse`: the scanner finds boundaries, it does not
 * validate. Member names are decoded (`"quer\u0079"` is `query`, as `JSON.parse` reads it).
 *
 * Duplicate members: `JSON.parse` keeps the last of two `"provider"` members, another reader may
 * keep the first, so a body with duplicates means different things to the Worker, the gateway and
 * the provider. {@link findDuplicateMember} finds them in the envelope the gateway reads (a step,
 * its `headers` — names compared case-insensitively, as HTTP does — and its `config`); a step's
 * `query` is the provider's body and is left to the provider.
 */

/** One member of a JSON object, as written. */
export interface JsonMember {
  /** The name, decoded. */
  readonly name: string;
  /** The name token as written, quotes included. */
  readonly nameText: string;
  /** The value as written. */
  readonly valueText: string;
}

/** A universal body's steps as written. */
export interface UniversalBodyText {
  /** `steps`: a JSON array; `step`: one object; `other`: neither (the schema refuses it). */
  readonly form: "steps" | "step" | "other";
  /** Each step's members in order (duplicates kept); `undefined` for an item that is no object. */
  readonly steps: readonly (readonly JsonMember[] | undefined)[];
}

/** A member written twice in a universal body's envelope. */
export interface DuplicateMember {
  /** The step's index (0 for a body that is one step). */
  readonly step: number;
  /** Where: the step itself, or its `headers` or `config` object. */
  readonly within: "step" | "headers" | "config";
  /** The name written twice (for `headers`, lower-cased). */
  readonly name: string;
}

/**
 * The steps of a universal body's text.
 * @param text JSON that `JSON.parse` accepted
 * @example
 * scanUniversalBody('[{"provider":"openai","query":{"model":"m" }}]').steps[0]?.[1]?.valueText; // '{"model":"m" }'
 */
export function scanUniversalBody(text: string): UniversalBodyText {
  const scan = new Cursor(text);
  scan.skipWhitespace();
  if (scan.peek() === openBrace) return { form: "step", steps: [scan.members()] };
  if (scan.peek() !== openBracket) return { form: "other", steps: [] };
  const steps: (JsonMember[] | undefined)[] = [];
  scan.index++;
  scan.skipWhitespace();
  if (scan.peek() === closeBracket) return { form: "steps", steps };
  for (;;) {
    scan.skipWhitespace();
    if (scan.peek() === openBrace) steps.push(scan.members());
    else {
      scan.skipValue();
      steps.push(undefined);
    }
    scan.skipWhitespace();
    if (scan.peek() !== comma) return { form: "steps", steps };
    scan.index++;
  }
}

/** The members of the object `text` (JSON that parsed), or undefined when it is no object. */
export function objectMembers(text: string): JsonMember[] | undefined {
  const scan = new Cursor(text);
  scan.skipWhitespace();
  return scan.peek() === openBrace ? scan.members() : undefined;
}

/** The text of member `name`, the last one as `JSON.parse` reads it; undefined when absent. */
export function memberText(members: readonly JsonMember[], name: string): string | undefined {
  return members.findLast((member) => member.name === name)?.valueText;
}

/** The first member written twice in a step, its `headers` or its `config`; undefined if none. */
export function findDuplicateMember(body: UniversalBodyText): DuplicateMember | undefined {
  for (const [step, members] of body.steps.entries()) {
    if (members === undefined) continue;
    const name = repeated(members.map((member) => member.name));
    if (name !== undefined) return { step, within: "step", name };
    for (const within of ["headers", "config"] as const) {
      const inner = members.find((member) => member.name === within);
      const innerMembers = inner === undefined ? undefined : objectMembers(inner.valueText);
      if (innerMembers === undefined) continue;
      const names = innerMembers.map((member) =>
        within === "headers" ? member.name.toLowerCase() : member.name,
      );
      const innerName = repeated(names);
      if (innerName !== undefined) return { step, within, name: innerName };
    }
  }
  return undefined;
}

/** The envelope's own member names: the only ones a refusal names (another may be pasted text). */
const envelopeNames = new Set(["provider", "endpoint", "headers", "query", "config"]);

/**
 * What is wrong, for a 400's message, naming only the envelope's own members.
 * @example
 * describeDuplicate({ step: 0, within: "step", name: "provider" }); // 'step 0 has two "provider" members; send each member once'
 */
export function describeDuplicate({ step, within, name }: DuplicateMember): string {
  const what =
    within !== "step"
      ? `a ${within} member written twice`
      : envelopeNames.has(name)
        ? `two "${name}" members`
        : "a member written twice";
  return `step ${step} has ${what}; send each member once`;
}

function repeated(names: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const comma = 0x2c;
const quote = 0x22;
const backslash = 0x5c;
const whitespace = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** A cursor over JSON text known to be valid. */
class Cursor {
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

  /** Reads an object (cursor on `{`) and returns its members in order. */
  members(): JsonMember[] {
    const text = this.#text;
    const members: JsonMember[] = [];
    this.index++;
    this.skipWhitespace();
    if (this.peek() === closeBrace) {
      this.index++;
      return members;
    }
    for (;;) {
      this.skipWhitespace();
      const nameStart = this.index;
      const escaped = this.#skipString();
      const nameText = text.slice(nameStart, this.index);
      const name = escaped ? (JSON.parse(nameText) as string) : nameText.slice(1, -1);
      this.skipWhitespace();
      this.index++; // the colon
      this.skipWhitespace();
      const valueStart = this.index;
      this.skipValue();
      members.push({ name, nameText, valueText: text.slice(valueStart, this.index) });
      this.skipWhitespace();
      const next = this.peek();
      this.index++;
      if (next !== comma) return members;
    }
  }

  /** Moves past one value: a string, an object, an array, a number or a literal. */
  skipValue(): void {
    const text = this.#text;
    const first = text.charCodeAt(this.index);
    if (first === quote) {
      this.#skipString();
      return;
    }
    if (first === openBrace || first === openBracket) {
      let depth = 0;
      do {
        const code = text.charCodeAt(this.index);
        if (code === quote) {
          this.#skipString();
          continue;
        }
        if (code === openBrace || code === openBracket) depth++;
        else if (code === closeBrace || code === closeBracket) depth--;
        this.index++;
      } while (depth > 0 && this.index < text.length);
      return;
    }
    while (this.index < text.length) {
      const code = text.charCodeAt(this.index);
      if (code === comma || code === closeBrace || code === closeBracket || whitespace.has(code)) {
        return;
      }
      this.index++;
    }
  }

  /** Cursor on an opening quote; moves past the closing one. Returns whether it held escapes. */
  #skipString(): boolean {
    const text = this.#text;
    let escaped = false;
    this.index++;
    while (this.index < text.length) {
      const code = text.charCodeAt(this.index);
      if (code === backslash) {
        escaped = true;
        this.index += 2;
      } else if (code === quote) {
        this.index++;
        return escaped;
      } else this.index++;
    }
    return escaped;
  }
}
