/**
 * @module
 * The ways a secret can be written in an answer so that an app's client reads it back. Two kinds:
 *
 * - **Character by character**: each character of the secret as itself, as a JSON `\uXXXX` escape
 *   (any hex case, the backslash doubled up to four times for JSON inside JSON), `\/` for `/`, or
 *   percent-encoded (`%XX` or double-encoded `%25XX`, any hex case), in any mix. These are found
 *   in an {@link EscapeView}: the text with every such escape decoded, mapped back to the text.
 * - **Fixed strings** of the whole secret: hex (any case), base64 and base64url (at each of the
 *   three alignments a secret can have inside a longer base64 text), UTF-16LE and UTF-16BE.
 *
 * Texts are byte strings (one character per byte), as the scrubber reads bodies and headers, or
 * JSON string values once parsed (an SSE delta's text).
 */

/** A spelling found as a fixed string; `caseless`: found in the lower-cased text (hex). */
export interface FixedSpelling {
  readonly text: string;
  readonly caseless: boolean;
}

/** The longest run of backslashes an escape may start with (JSON inside JSON inside JSON). */
const maxBackslashes = 4;
/** The longest escape of one character: four backslashes, `u` and four hex digits. */
export const longestEscape = maxBackslashes + 5;
/** Base64 and hex spellings shorter than this are not used: too likely to occur by chance. */
const shortestEncoded = 12;

/** Every fixed-string spelling of `secret`. */
export function fixedSpellings(secret: string): FixedSpelling[] {
  const bytes = byteString(secret);
  const spellings: FixedSpelling[] = [];
  const add = (text: string, caseless = false) => {
    if (text.length >= shortestEncoded) spellings.push({ text, caseless });
  };
  add([...bytes].map((char) => char.charCodeAt(0).toString(16).padStart(2, "0")).join(""), true);
  for (const text of base64Interiors(bytes)) {
    add(text);
    add(text.replaceAll("+", "-").replaceAll("/", "_"));
  }
  let little = "";
  let big = "";
  for (let index = 0; index < secret.length; index++) {
    const unit = secret.charCodeAt(index);
    const low = String.fromCharCode(unit & 0xff);
    const high = String.fromCharCode(unit >> 8);
    little += low + high;
    big += high + low;
  }
  add(little);
  add(big);
  return spellings;
}

/**
 * The base64 characters that depend on the secret's bytes alone, for each of the three offsets
 * (mod 3) at which it can start inside a longer encoded text.
 */
function base64Interiors(bytes: string): string[] {
  const interiors: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const padded = "\0".repeat(offset) + bytes;
    const encoded = btoa(padded + "\0".repeat((3 - (padded.length % 3)) % 3));
    const first = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    interiors.push(encoded.slice(first, end));
  }
  return interiors;
}

/** `text` as UTF-8 bytes, one character a byte, as the scrubber reads bodies (`byteText`). */
export function byteString(text: string): string {
  return latin1.decode(new TextEncoder().encode(text));
}

const latin1 = new TextDecoder("latin1");

const hexDigit = /^[0-9a-fA-F]$/;
const mayHaveEscape = /%[0-9a-fA-F]|\\[\\/u]/;

function hexAt(text: string, at: number, digits: number): number {
  if (at + digits > text.length) return -1;
  for (let index = at; index < at + digits; index++) {
    if (!hexDigit.test(text[index]!)) return -1;
  }
  return Number.parseInt(text.slice(at, at + digits), 16);
}

/**
 * A text with its character escapes decoded (`%XX`, `%25XX`, `\uXXXX`, `\/`), and where each
 * decoded character came from. Escapes are few beside plain characters, so only they are listed.
 */
export class EscapeView {
  readonly decoded: string;
  /** For each escape, in order: its index in `decoded`, its start in the text, its length. */
  readonly #at: number[] = [];
  readonly #from: number[] = [];
  readonly #length: number[] = [];

  constructor(text: string) {
    // Most texts have no escape this decodes (a JSON `\n` is not one): they are their own view.
    if (!mayHaveEscape.test(text)) {
      this.decoded = text;
      return;
    }
    const parts: string[] = [];
    let decodedLength = 0;
    let plainFrom = 0;
    let index = 0;
    const candidates = /[%\\]/g;
    while (index < text.length) {
      candidates.lastIndex = index;
      if (candidates.exec(text) === null) break;
      index = candidates.lastIndex - 1;
      const char = text[index];
      let code = -1;
      let length = 0;
      if (char === "%") {
        const first = hexAt(text, index + 1, 2);
        const second = first === 0x25 ? hexAt(text, index + 3, 2) : -1;
        if (second !== -1) [code, length] = [second, 5];
        else if (first !== -1) [code, length] = [first, 3];
      } else if (char === "\\") {
        let run = 1;
        while (run < maxBackslashes && text[index + run] === "\\") run++;
        const next = text[index + run];
        if (next === "/") [code, length] = [0x2f, run + 1];
        else if (next === "u") {
          const unit = hexAt(text, index + run + 1, 4);
          if (unit !== -1) [code, length] = [unit, run + 5];
        }
      }
      if (code === -1) {
        index++;
        continue;
      }
      parts.push(text.slice(plainFrom, index), String.fromCharCode(code));
      decodedLength += index - plainFrom;
      this.#at.push(decodedLength);
      this.#from.push(index);
      this.#length.push(length);
      decodedLength++;
      index += length;
      plainFrom = index;
    }
    parts.push(text.slice(plainFrom));
    this.decoded = parts.join("");
  }

  /** Where decoded character `index` starts in the text. */
  start(index: number): number {
    const last = this.#lastEscapeAtOrBefore(index);
    if (last === -1) return index;
    const at = this.#at[last]!;
    return at === index
      ? this.#from[last]!
      : this.#from[last]! + this.#length[last]! + (index - at - 1);
  }

  /** Where decoded character `index` ends in the text. */
  end(index: number): number {
    const last = this.#lastEscapeAtOrBefore(index);
    if (last !== -1 && this.#at[last] === index) return this.#from[last]! + this.#length[last]!;
    return this.start(index) + 1;
  }

  #lastEscapeAtOrBefore(index: number): number {
    let low = 0;
    let high = this.#at.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.#at[middle]! <= index) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found;
  }
}

/** Where an escape left unfinished at the end of `text` starts (`%2`, `\\u00`…), or −1. */
export function unfinishedEscape(text: string): number {
  const match = /(?:%(?:25[0-9a-fA-F]?|[0-9a-fA-F])?|\\{1,4}(?:u[0-9a-fA-F]{0,3})?)$/.exec(
    text.slice(-longestEscape),
  );
  return match === null ? -1 : text.length - match[0].length;
}
