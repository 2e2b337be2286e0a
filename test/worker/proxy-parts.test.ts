/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * The proxy's parts on their own: the secret scrubber (every spelling, any chunking), the
 * universal body rewrite (only step headers change), the JSON depth check.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonDepth } from "../../src/worker/http/body.ts";
import { redacted, SecretScrubber } from "../../src/worker/proxy/scrub.ts";
import { replaceStepHeaders } from "../../src/worker/proxy/universal-body.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Streams `text` in chunks of the given sizes (the rest in one last chunk). */
async function scrubStreamed(scrubber: SecretScrubber, text: string, sizes: number[]) {
  const bytes = encoder.encode(text);
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const size of sizes) {
    if (offset >= bytes.length) break;
    chunks.push(bytes.slice(offset, offset + size));
    offset += size;
  }
  if (offset < bytes.length) chunks.push(bytes.slice(offset));
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
  let ended: { copy: Uint8Array | null; failed: boolean } | undefined;
  const out = scrubber.stream(source, (outcome) => (ended = outcome), 1024);
  const text_ = await new Response(out).text();
  return { text: text_, ended };
}

describe("SecretScrubber", () => {
  const key = "sk-proj-Abc/123+xyz=";
  const token = `sw_0123456789ab_${"T".repeat(43)}`;
  const scrubber = new SecretScrubber([key, token, undefined]);

  it("replaces the secret as written, JSON-escaped and URL-encoded, in text and headers", () => {
    const text = `a ${key} b ${key.replaceAll("/", "\\/")} c ${encodeURIComponent(key)} d ${token}`;
    expect(scrubber.text(text)).toBe(`a ${redacted} b ${redacted} c ${redacted} d ${redacted}`);
    const headers = scrubber.headers(new Headers({ "x-echo": `Bearer ${key}`, other: "fine" }));
    expect(headers.get("x-echo")).toBe(`Bearer ${redacted}`);
    expect(headers.get("other")).toBe("fine");
  });

  it("leaves a whole body without secrets untouched (the same bytes)", () => {
    const body = encoder.encode('{"usage":{"prompt_tokens":3}}');
    expect(scrubber.bytes(body)).toBe(body);
    expect(decoder.decode(scrubber.bytes(encoder.encode(`x${key}y`)))).toBe(`x${redacted}y`);
  });

  it("catches a secret however a stream is cut, and reports the end with a copy", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 40 }),
        fc.string({ maxLength: 20 }),
        async (sizes, filler) => {
          const text = `${filler}${key}${filler}${token}${key}`;
          const { text: out, ended } = await scrubStreamed(scrubber, text, sizes);
          expect(out).toBe(`${filler}${redacted}${filler}${redacted}${redacted}`);
          expect(ended?.failed).toBe(false);
          expect(decoder.decode(ended?.copy ?? new Uint8Array())).toBe(out);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("passes a chunk on whole at once when its end cannot begin a secret, holding back only a secret's start", async () => {
    // Issue 29: a stream's events must reach the app as they come, not one chunk late.
    const event = `data: ${JSON.stringify({ choices: [{ delta: { content: "x".repeat(150) } }] })}\n\n`;
    const pieces = [event, `tail ${key.slice(0, 6)}`, `${key.slice(6)} end`];
    let sent = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        // After each piece the upstream goes quiet until the reader asks again.
        if (sent < pieces.length) controller.enqueue(encoder.encode(pieces[sent++]!));
        else controller.close();
      },
    });
    const reader = scrubber.stream(source, () => undefined).getReader();
    const read = async () => decoder.decode((await reader.read()).value);
    expect(await read()).toBe(event);
    expect(await read()).toBe("tail ");
    expect(await read()).toBe(`${redacted} end`);
    expect((await reader.read()).done).toBe(true);
  });

  it("ends with failed when the upstream stream breaks", async () => {
    let sent = false;
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) controller.error(new Error("upstream went away"));
        else controller.enqueue(encoder.encode("partial answer"));
        sent = true;
      },
    });
    let ended: { failed: boolean } | undefined;
    const out = scrubber.stream(broken, (outcome) => (ended = outcome));
    await expect(new Response(out).text()).rejects.toThrow();
    expect(ended?.failed).toBe(true);
  });
});

describe("replaceStepHeaders", () => {
  it("replaces (or adds) each step's headers and keeps every other byte", () => {
    const body =
      '[ {"provider":"openai", "headers": {"x":"1"}, "query":{"n":1.50,"big":12345678901234567890}} ,' +
      '{"query":["a\\"]}",{"b":[]}],"provider":"anthropic"} ]';
    const out = replaceStepHeaders(body, [{ authorization: "Bearer k1" }, { "x-api-key": "k2" }]);
    expect(out).toBe(
      '[{"provider":"openai","headers":{"authorization":"Bearer k1"},"query":{"n":1.50,"big":12345678901234567890}},' +
        '{"query":["a\\"]}",{"b":[]}],"provider":"anthropic","headers":{"x-api-key":"k2"}}]',
    );
    expect(JSON.parse(out)).toHaveLength(2);
  });
});

describe("jsonDepth", () => {
  it("counts nesting outside strings only", () => {
    expect(jsonDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonDepth('"[[[[[[" ')).toBe(0);
    expect(jsonDepth('["\\"[[[", [[]]]')).toBe(3);
    expect(jsonDepth(`${"[".repeat(100_000)}${"]".repeat(100_000)}`)).toBe(100_000);
  });
});
