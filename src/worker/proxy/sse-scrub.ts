/**
 * @module
 * Scrubs a stream of server-sent events event by event. An event is passed on once it is
 * complete (a client acts on nothing before its blank line, so this costs no latency), scrubbed
 * whole. The text a client puts together from many events — the `content`, `text`, `delta`,
 * `partial_json`, `arguments`, `thinking`, `reasoning` strings of OpenAI's, Anthropic's and
 * Google's deltas, one run per place in the JSON (choice and block `index` included) — is scrubbed
 * as one text: when a delta's text ends with what could begin a secret, that end (never more than
 * the longest spelling less one) moves to the next delta of the same place, or, before an event
 * with no delta text at all (a stop, `[DONE]`) and at the end of the stream, is sent in an event
 * of its own, so a secret split across two events is caught as well. Events left as they were are
 * passed on byte for byte; an event longer than {@link longestEvent} without an end is scrubbed as
 * bytes from then on.
 */
import type { SecretMatcher } from "./secret-matcher.ts";

/** Names of the JSON strings that a client joins across events. */
const deltaFields = new Set([
  "content",
  "text",
  "delta",
  "partial_json",
  "arguments",
  "thinking",
  "reasoning",
  "reasoning_content",
  "refusal",
]);

/** An unfinished event longer than this stops event-by-event scrubbing. */
export const longestEvent = 1024 * 1024;

type ScrubBytes = (bytes: Uint8Array, final: boolean) => { out: Uint8Array; rest: Uint8Array };

/** A delta text's end held back, and an event to send it in if no later delta takes it. */
interface HeldText {
  text: string;
  /** The event it came from, with every delta text emptied; `path` leads to the one to fill. */
  readonly template: { readonly lines: readonly string[]; readonly data: unknown };
  readonly path: readonly (string | number)[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class EventStreamScrubber {
  readonly #matcher: SecretMatcher;
  readonly #replacement: string;
  readonly #scrubBytes: ScrubBytes;
  #pending: Uint8Array = new Uint8Array(0);
  /** Once an event was too long: plain byte scrubbing, `#pending` the bytes held back. */
  #asBytes = false;
  readonly #held = new Map<string, HeldText>();

  constructor(matcher: SecretMatcher, replacement: string, scrubBytes: ScrubBytes) {
    this.#matcher = matcher;
    this.#replacement = replacement;
    this.#scrubBytes = scrubBytes;
  }

  /** What can be passed on after `chunk`. */
  push(chunk: Uint8Array): Uint8Array {
    const data = join(this.#pending, chunk);
    if (this.#asBytes) {
      const { out, rest } = this.#scrubBytes(data, false);
      this.#pending = rest;
      return out;
    }
    const out: Uint8Array[] = [];
    let from = 0;
    for (;;) {
      const end = eventEnd(data, from);
      if (end === -1) break;
      out.push(this.#event(data.subarray(from, end)));
      from = end;
    }
    this.#pending = data.slice(from);
    if (this.#pending.byteLength > longestEvent) {
      this.#asBytes = true;
      out.push(this.#flush());
      const { out: scrubbed, rest } = this.#scrubBytes(this.#pending, false);
      out.push(scrubbed);
      this.#pending = rest;
    }
    return join(...out);
  }

  /** What is left at the end of the stream. */
  end(): Uint8Array {
    const held = this.#flush();
    const rest = this.#scrubBytes(this.#pending, true).out;
    this.#pending = new Uint8Array(0);
    return join(held, rest);
  }

  /** One complete event (with its blank line), scrubbed. */
  #event(raw: Uint8Array): Uint8Array {
    const bytes = this.#scrubBytes(raw, true).out;
    const parsed = parseEvent(decoder.decode(bytes));
    if (parsed === undefined) return join(this.#flush(), bytes);
    const leaves: { path: (string | number)[]; value: string }[] = [];
    collectDeltas(parsed.data, [], leaves);
    if (leaves.length === 0) return join(this.#flush(), bytes);
    let changed = false;
    for (const leaf of leaves) {
      const place = placeOf(parsed.data, leaf.path);
      const before = this.#held.get(place);
      const joined = this.#matcher.replace((before?.text ?? "") + leaf.value, this.#replacement);
      const hold = this.#matcher.openTail(joined);
      const sent = joined.slice(0, joined.length - hold);
      if (sent !== leaf.value) changed = true;
      setAt(parsed.data, leaf.path, sent);
      if (hold === 0) this.#held.delete(place);
      else {
        this.#held.set(place, {
          text: joined.slice(joined.length - hold),
          template: { lines: parsed.lines, data: emptied(parsed.data) },
          path: leaf.path,
        });
      }
    }
    if (!changed) return bytes;
    return encoder.encode(writeEvent(parsed.lines, parsed.data));
  }

  /** Every held text, each in an event of its own. */
  #flush(): Uint8Array {
    if (this.#held.size === 0) return new Uint8Array(0);
    let text = "";
    for (const held of this.#held.values()) {
      const data = structuredClone(held.template.data);
      setAt(data, held.path, held.text);
      text += writeEvent(held.template.lines, data);
    }
    this.#held.clear();
    return encoder.encode(text);
  }
}

/** The end of the first complete event at or after `from` (past its blank line), or −1. */
function eventEnd(data: Uint8Array, from: number): number {
  for (let index = from; index < data.byteLength; index++) {
    const byte = data[index];
    if (byte !== 0x0a && byte !== 0x0d) continue;
    const next = data[index + 1];
    if (byte === 0x0a && next === 0x0a) return index + 2;
    if (byte === 0x0d && next === 0x0d) return index + 2;
    if (byte === 0x0d && next === 0x0a && data[index + 2] === 0x0d && data[index + 3] === 0x0a) {
      return index + 4;
    }
  }
  return -1;
}

/** An event whose data is a JSON object or array: its other lines and the parsed data. */
function parseEvent(text: string): { lines: string[]; data: unknown } | undefined {
  const lines = text.split(/\r\n|\r|\n/).filter((line) => line !== "");
  const data: string[] = [];
  const others: string[] = [];
  for (const line of lines) {
    if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    else others.push(line);
  }
  if (data.length === 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(data.join("\n"));
    return typeof parsed === "object" && parsed !== null
      ? { lines: others, data: parsed }
      : undefined;
  } catch {
    return undefined;
  }
}

function writeEvent(lines: readonly string[], data: unknown): string {
  return `${[...lines, `data: ${JSON.stringify(data)}`].join("\n")}\n\n`;
}

/** Every delta string in `value`, with its path. */
function collectDeltas(
  value: unknown,
  path: (string | number)[],
  into: { path: (string | number)[]; value: string }[],
): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) collectDeltas(item, [...path, index], into);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === "string" && deltaFields.has(name))
      into.push({ path: [...path, name], value: item });
    else collectDeltas(item, [...path, name], into);
  }
}

/** The place a delta adds to: its path, with the `index` of each object on the way. */
function placeOf(data: unknown, path: readonly (string | number)[]): string {
  const parts: string[] = [];
  let value: unknown = data;
  for (const step of path) {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const index = (value as Record<string, unknown>).index;
      if (typeof index === "number" || typeof index === "string") parts.push(`#${index}`);
    }
    parts.push(String(step));
    value = (value as Record<string | number, unknown> | undefined)?.[step];
  }
  return parts.join("/");
}

function setAt(data: unknown, path: readonly (string | number)[], text: string): void {
  let value = data as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) value = value[step] as Record<string | number, unknown>;
  value[path.at(-1)!] = text;
}

/** A copy of `data` with every delta string emptied. */
function emptied(data: unknown): unknown {
  const copy = structuredClone(data);
  const leaves: { path: (string | number)[]; value: string }[] = [];
  collectDeltas(copy, [], leaves);
  for (const leaf of leaves) setAt(copy, leaf.path, "");
  return copy;
}

function join(...parts: Uint8Array[]): Uint8Array {
  const nonEmpty = parts.filter((part) => part.byteLength > 0);
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  const total = nonEmpty.reduce((sum, part) => sum + part.byteLength, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of nonEmpty) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
