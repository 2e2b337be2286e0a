/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * The scrubber as an attacker would probe it (issue #23): fast-check generates keys, spells each
 * one the ways an app's client can read back (as written, any mix of `\uXXXX` and percent escapes,
 * base64 and base64url inside longer encoded text, hex in any case, UTF-16LE/BE), puts it in an
 * answer, cuts the answer at arbitrary chunk boundaries or spreads it over SSE delta events, and
 * checks that no decoding of what reaches the app (its bytes, and the text its client joins from
 * the deltas) holds the key. The decodings checked here are written independently of the
 * scrubber's own. Fixed seed: a run never depends on chance.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redacted, SecretScrubber } from "../../src/worker/proxy/scrub.ts";

const seed = 2323;
const alphabet = [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_/+=."];
const key = fc
  .tuple(
    fc.constantFrom("sk-", "sk-ant-api03-", "AIza", "gsk_", ""),
    fc.array(fc.constantFrom(...alphabet), { minLength: 16, maxLength: 40 }),
  )
  .map(([prefix, rest]) => prefix + rest.join(""));
/** Text around the key: letters, spaces and punctuation, never an escape or encoded run. */
const filler = fc
  .array(fc.constantFrom(..."abc XYZ,.!?:;()[]"), { maxLength: 30 })
  .map((chars) => chars.join(""));

const hex2 = (code: number, upper: boolean) => {
  const text = code.toString(16).padStart(2, "0");
  return upper ? text.toUpperCase() : text;
};

/** One character spelled one of six ways. */
function spellChar(char: string, how: number): string {
  const code = char.charCodeAt(0);
  switch (how) {
    case 1:
      return `\\u00${hex2(code, false)}`;
    case 2:
      return `\\u00${hex2(code, true)}`;
    case 3:
      return `%${hex2(code, false)}`;
    case 4:
      return `%${hex2(code, true)}`;
    case 5:
      return `%25${hex2(code, true)}`;
    default:
      return char;
  }
}

type Spelling = (secret: string) => fc.Arbitrary<string>;
const spellings: Record<string, Spelling> = {
  "as written": (secret) => fc.constant(secret),
  "any mix of escapes": (secret) =>
    fc
      .array(fc.integer({ min: 0, max: 5 }), {
        minLength: secret.length,
        maxLength: secret.length,
      })
      .map((hows) => [...secret].map((char, index) => spellChar(char, hows[index]!)).join("")),
  "base64 inside base64": (secret) =>
    fc
      .tuple(filler, filler)
      .map(([before, after]) => btoa(before + secret + after).replace(/=+$/, "")),
  "base64url inside base64url": (secret) =>
    fc.tuple(filler, filler).map(([before, after]) =>
      btoa(before + secret + after)
        .replaceAll("+", "-")
        .replaceAll("/", "_")
        .replace(/=+$/, ""),
    ),
  hex: (secret) =>
    fc
      .array(fc.boolean(), { minLength: secret.length * 2, maxLength: secret.length * 2 })
      .map((uppers) =>
        [...secret]
          .map((char) => hex2(char.charCodeAt(0), false))
          .join("")
          .split("")
          .map((digit, index) => (uppers[index] ? digit.toUpperCase() : digit))
          .join(""),
      ),
  "UTF-16LE": (secret) => fc.constant([...secret].map((char) => `${char}\0`).join("")),
  "UTF-16BE": (secret) => fc.constant([...secret].map((char) => `\0${char}`).join("")),
};

/** True when some decoding an app's client could apply to `text` shows `secret`. */
function readable(text: string, secret: string): boolean {
  if (text.includes(secret)) return true;
  let unescaped = text;
  for (let round = 0; round < 3; round++) {
    unescaped = unescaped
      .replace(/\\+u([0-9a-fA-F]{4})/g, (_all, code: string) =>
        String.fromCharCode(Number.parseInt(code, 16)),
      )
      .replace(/\\+\//g, "/")
      .replace(/%([0-9a-fA-F]{2})/g, (_all, code: string) =>
        String.fromCharCode(Number.parseInt(code, 16)),
      );
  }
  if (unescaped.includes(secret)) return true;
  for (const run of text.match(/[A-Za-z0-9+/\-_]{8,}/g) ?? []) {
    const standard = run.replaceAll("-", "+").replaceAll("_", "/");
    for (let skip = 0; skip < 4; skip++) {
      const part = standard.slice(skip);
      const whole = part.slice(0, part.length - (part.length % 4));
      try {
        if (atob(whole).includes(secret)) return true;
      } catch {
        // not base64 from here
      }
    }
  }
  for (const run of text.match(/[0-9a-fA-F]{8,}/g) ?? []) {
    for (let skip = 0; skip < 2; skip++) {
      const pairs = run.slice(skip).match(/../g) ?? [];
      if (
        pairs
          .map((pair) => String.fromCharCode(Number.parseInt(pair, 16)))
          .join("")
          .includes(secret)
      ) {
        return true;
      }
    }
  }
  const units = [...text];
  for (let skip = 0; skip < 2; skip++) {
    const everyOther = units.filter((_char, index) => index % 2 === skip).join("");
    if (everyOther.includes(secret)) return true;
  }
  return false;
}

const toBytes = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0));
const fromBytes = (bytes: Uint8Array) => String.fromCharCode(...bytes);

function chunked(bytes: Uint8Array, sizes: readonly number[]): ReadableStream<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const size of sizes) {
    if (offset >= bytes.byteLength) break;
    chunks.push(bytes.slice(offset, offset + size));
    offset += size;
  }
  if (offset < bytes.byteLength) chunks.push(bytes.slice(offset));
  return new ReadableStream({
    pull(controller) {
      const next = chunks.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
}

const spelled = fc.tuple(key, fc.constantFrom(...Object.keys(spellings))).chain(([secret, name]) =>
  fc.record({
    secret: fc.constant(secret),
    name: fc.constant(name),
    spelled: spellings[name]!(secret),
    before: filler,
    after: filler,
  }),
);
const sizes = fc.array(fc.integer({ min: 1, max: 13 }), { maxLength: 80 });

describe("no generated spelling of a key reaches the app", () => {
  it("in a body, whole or cut anywhere", async () => {
    await fc.assert(
      fc.asyncProperty(spelled, sizes, async ({ secret, spelled, before, after }, cuts) => {
        const scrubber = new SecretScrubber([secret]);
        const body = toBytes(`${before}${spelled}${after}`);
        const whole = fromBytes(scrubber.bytes(body));
        expect(readable(whole, secret)).toBe(false);
        expect(whole).toContain(redacted);
        const streamed = scrubber.stream(chunked(body, cuts), () => undefined);
        const out = fromBytes(new Uint8Array(await new Response(streamed).arrayBuffer()));
        expect(readable(out, secret)).toBe(false);
        expect(out).toContain(redacted);
      }),
      { seed, numRuns: 300 },
    );
  });

  it("spread over SSE delta events, the events cut anywhere", async () => {
    await fc.assert(
      fc.asyncProperty(
        spelled,
        fc.array(fc.integer({ min: 1, max: 17 }), { minLength: 1, maxLength: 30 }),
        sizes,
        async ({ secret, spelled, before, after }, deltaSizes, cuts) => {
          const scrubber = new SecretScrubber([secret]);
          const content = `${before}${spelled}${after}`;
          const pieces: string[] = [];
          let at = 0;
          for (const size of deltaSizes) {
            if (at >= content.length) break;
            pieces.push(content.slice(at, at + size));
            at += size;
          }
          if (at < content.length) pieces.push(content.slice(at));
          const events = pieces.map(
            (piece) =>
              `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`,
          );
          const body = new TextEncoder().encode(`${events.join("")}data: [DONE]\n\n`);
          const streamed = scrubber.stream(chunked(body, cuts), () => undefined, 0, true);
          const out = new TextDecoder().decode(await new Response(streamed).arrayBuffer());
          const joined = out
            .split("\n\n")
            .filter((event) => event.startsWith("data: {"))
            .map((event) => JSON.parse(event.slice(6)).choices[0].delta.content as string)
            .join("");
          expect(readable(joined, secret)).toBe(false);
          expect(readable(out, secret)).toBe(false);
          expect(joined).toContain(redacted);
          expect(out.endsWith("data: [DONE]\n\n")).toBe(true);
        },
      ),
      { seed, numRuns: 300 },
    );
  });
});
