/**
 * @module
 * Finds the secrets of a call in a text, in every spelling of `secret-spellings.ts`, and says how
 * much of a text's end could still be the start of one (what a stream must hold back: never more
 * than the longest spelling less one character).
 */
import {
  byteString,
  EscapeView,
  type FixedSpelling,
  fixedSpellings,
  longestEscape,
  unfinishedEscape,
} from "./secret-spellings.ts";

/** A part of a text to replace: `[start, end)`. */
export interface Found {
  readonly start: number;
  readonly end: number;
}

/** The secrets of one call and all their spellings. */
export class SecretMatcher {
  /** The secrets as byte strings, matched character by character through an {@link EscapeView}. */
  readonly #secrets: readonly string[];
  readonly #fixed: readonly FixedSpelling[];
  /** The longest spelling, in characters of the text. */
  readonly longest: number;

  constructor(secrets: readonly (string | undefined)[]) {
    const distinct = new Set<string>();
    for (const secret of secrets) {
      if (secret !== undefined && secret.length >= 4) distinct.add(secret);
    }
    this.#secrets = [...distinct].map(byteString);
    const fixed = new Map<string, FixedSpelling>();
    for (const secret of distinct) {
      for (const spelling of fixedSpellings(secret)) fixed.set(spelling.text, spelling);
    }
    this.#fixed = [...fixed.values()];
    this.longest = Math.max(
      0,
      ...this.#secrets.map((secret) => secret.length * longestEscape),
      ...this.#fixed.map((spelling) => spelling.text.length),
    );
  }

  /** True when there is nothing to look for. */
  get empty(): boolean {
    return this.#secrets.length === 0;
  }

  /** Every spelling of a secret in `text`, sorted, overlapping ones merged. */
  find(text: string): Found[] {
    if (this.empty) return [];
    const found: Found[] = [];
    const view = new EscapeView(text);
    for (const secret of this.#secrets) {
      for (
        let at = view.decoded.indexOf(secret);
        at !== -1;
        at = view.decoded.indexOf(secret, at + 1)
      ) {
        found.push({ start: view.start(at), end: view.end(at + secret.length - 1) });
      }
    }
    let lower: string | undefined;
    for (const spelling of this.#fixed) {
      if (spelling.caseless) lower ??= text.toLowerCase();
      const haystack = spelling.caseless ? lower! : text;
      for (
        let at = haystack.indexOf(spelling.text);
        at !== -1;
        at = haystack.indexOf(spelling.text, at + 1)
      ) {
        found.push({ start: at, end: at + spelling.text.length });
      }
    }
    return merge(found);
  }

  /** `text` with every spelling of a secret replaced by `replacement`. */
  replace(text: string, replacement: string): string {
    const found = this.find(text);
    if (found.length === 0) return text;
    let out = "";
    let from = 0;
    for (const part of found) {
      out += text.slice(from, part.start) + replacement;
      from = part.end;
    }
    return out + text.slice(from);
  }

  /**
   * How many characters at the end of `text` could be the start (not the whole) of a spelling of
   * a secret: what a stream holds back until more comes. 0 for ordinary text.
   */
  openTail(text: string): number {
    if (this.empty || text.length === 0) return 0;
    let hold = 0;
    const window = text.slice(-(this.longest - 1));
    const windowStart = text.length - window.length;
    let lower: string | undefined;
    for (const spelling of this.#fixed) {
      if (spelling.caseless) lower ??= window.toLowerCase();
      const haystack = spelling.caseless ? (lower as string) : window;
      const from = Math.max(0, haystack.length - (spelling.text.length - 1));
      for (let at = from; at < haystack.length - hold; at++) {
        if (haystack[at] !== spelling.text[0]) continue;
        if (spelling.text.startsWith(haystack.slice(at))) {
          hold = Math.max(hold, haystack.length - at);
          break;
        }
      }
    }
    // Character by character: the decoded end, and an escape not finished yet.
    const unfinished = unfinishedEscape(window);
    const complete = unfinished === -1 ? window : window.slice(0, unfinished);
    const view = new EscapeView(complete);
    const decoded = view.decoded;
    for (const secret of this.#secrets) {
      const from = Math.max(0, decoded.length - (secret.length - 1));
      for (let at = from; at <= decoded.length; at++) {
        if (at === decoded.length) {
          // Nothing decoded left: only the unfinished escape could begin the secret.
          if (unfinished !== -1) hold = Math.max(hold, window.length - unfinished);
          break;
        }
        if (decoded[at] !== secret[0]) continue;
        if (secret.startsWith(decoded.slice(at))) {
          hold = Math.max(hold, window.length - view.start(at));
          break;
        }
      }
    }
    return Math.min(hold, text.length, windowStart + window.length);
  }
}

function merge(found: Found[]): Found[] {
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Found[] = [];
  for (const part of found) {
    const last = merged.at(-1);
    if (last !== undefined && part.start < last.end) {
      merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, part.end) };
    } else merged.push(part);
  }
  return merged;
}
