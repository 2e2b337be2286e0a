/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * Every spelling of a key the last round walked around the scrubber with (issue #23), caught in
 * a whole body, in a header and in a stream: lower-case `%2f`, `\u0073`-style JSON escapes of any
 * character, base64, base64url and hex (also in a header), UTF-16LE/BE, and a key split across
 * two SSE `delta` events.
 */
import { describe, expect, it } from "vitest";
import { redacted, SecretScrubber } from "../../../src/worker/proxy/scrub.ts";

const key = "sk-proj-Abc/123+xyz=QrsTuv";
const scrubber = new SecretScrubber([key]);
const encoder = new TextEncoder();
const decoder = new TextDecoder("latin1");

function bytesOf(text: string): Uint8Array {
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}
function base64(text: string, prefix = ""): string {
  return btoa(prefix + text);
}
function hex(text: string): string {
  return [...text].map((char) => char.charCodeAt(0).toString(16).padStart(2, "0")).join("");
}
function utf16(text: string, order: "le" | "be"): string {
  return [...text].map((char) => (order === "le" ? `${char}\0` : `\0${char}`)).join("");
}
const jsonEscapeAll = (text: string, upper = false) =>
  [...text]
    .map((char) => {
      const code = char.charCodeAt(0).toString(16).padStart(4, "0");
      return `\\u${upper ? code.toUpperCase() : code}`;
    })
    .join("");
const percentAll = (text: string, upper: boolean) =>
  [...text]
    .map((char) => {
      const code = char.charCodeAt(0).toString(16).padStart(2, "0");
      return `%${upper ? code.toUpperCase() : code}`;
    })
    .join("");

const spellings: [string, string][] = [
  ["as written", key],
  [
    "percent-encoded, lower-case hex (%2f)",
    encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (code) => code.toLowerCase()),
  ],
  ["every character percent-encoded, upper case", percentAll(key, true)],
  ["every character percent-encoded, lower case", percentAll(key, false)],
  ["double percent-encoded", encodeURIComponent(encodeURIComponent(key))],
  ["the first character a \\u escape", `\\u0073${key.slice(1)}`],
  ["every character a \\u escape", jsonEscapeAll(key)],
  ["every character a \\u escape, upper-case hex", jsonEscapeAll(key, true)],
  ["JSON inside JSON (\\\\u0073)", `\\\\u0073${key.slice(1).replaceAll("/", "\\\\/")}`],
  ["escaped solidus", key.replaceAll("/", "\\/")],
  ["base64", base64(key)],
  ["base64 inside longer base64, offset 1", base64(key, "x")],
  ["base64 inside longer base64, offset 2", base64(key, "xy")],
  ["base64url", base64(key, "x").replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "")],
  ["hex, lower case", hex(key)],
  ["hex, upper case", hex(key).toUpperCase()],
  ["UTF-16LE", utf16(key, "le")],
  ["UTF-16BE", utf16(key, "be")],
];

describe("every spelling of a key is scrubbed", () => {
  it.each(spellings)("%s: in a whole body", (_name, spelled) => {
    const body = bytesOf(`{"echo":"before ${spelled} after"}`);
    const out = decoder.decode(scrubber.bytes(body));
    expect(out).toContain(redacted);
    expect(out).not.toContain(spelled);
    expect(out).toMatch(/^\{"echo":"before .*\[redacted\].* after"\}$/s);
  });

  it.each(spellings.filter(([name]) => !name.startsWith("UTF-16")))(
    "%s: in a header",
    (_name, spelled) => {
      const headers = scrubber.headers(new Headers({ "x-debug": `token=${spelled};` }));
      expect(headers.get("x-debug")).not.toContain(spelled);
      expect(headers.get("x-debug")).toContain(redacted);
    },
  );

  it.each(spellings)("%s: in a stream cut into 3-byte chunks", async (_name, spelled) => {
    const body = bytesOf(`data: ${spelled} end\n\n`);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < body.byteLength; at += 3) chunks.push(body.slice(at, at + 3));
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
    const out = decoder.decode(
      new Uint8Array(await new Response(scrubber.stream(source, () => undefined)).arrayBuffer()),
    );
    expect(out).not.toContain(spelled);
    expect(out).toContain(redacted);
  });

  it("leaves ordinary text alone, with no false alarm on hex or base64 of other things", () => {
    const text = `{"id":"${hex("another-value-entirely")}","b":"${base64("something else, not a key")}"}`;
    const body = encoder.encode(text);
    expect(scrubber.bytes(body)).toBe(body);
  });
});

describe("a key split across SSE delta events", () => {
  const event = (content: string, index = 0) =>
    `data: ${JSON.stringify({ choices: [{ index, delta: { content } }] })}\n\n`;

  async function streamed(pieces: string[]) {
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = pieces.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(encoder.encode(next));
      },
    });
    const reader = scrubber.stream(source, () => undefined, 0, true).getReader();
    const reads: string[] = [];
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      reads.push(new TextDecoder().decode(next.value));
    }
    return reads;
  }

  /** What a client shows: every delta's content joined. */
  function shown(reads: string[]): string {
    return reads
      .join("")
      .split("\n\n")
      .filter((line) => line.startsWith("data: {"))
      .map((line) => JSON.parse(line.slice(6)).choices[0].delta.content ?? "")
      .join("");
  }

  it("is caught, and the client still sees every other character", async () => {
    const reads = await streamed([
      event("Your key is "),
      event(key.slice(0, 9)),
      event(`${key.slice(9)}, keep it safe.`),
      "data: [DONE]\n\n",
    ]);
    expect(shown(reads)).toBe(`Your key is ${redacted}, keep it safe.`);
    expect(reads.join("")).not.toContain(key.slice(0, 9));
  });

  it("holds back only what could begin the key: an ordinary event passes at once, unchanged", async () => {
    const first = event("Hello there, ");
    const reads = await streamed([
      first,
      event("sk-pr"),
      event("ocess started"),
      "data: [DONE]\n\n",
    ]);
    expect(reads[0]).toBe(first);
    expect(shown(reads)).toBe("Hello there, sk-process started");
  });

  it("a held end with nothing after it is sent before the stream's last event", async () => {
    const reads = await streamed([event(`look: ${key.slice(0, 5)}`), "data: [DONE]\n\n"]);
    const text = reads.join("");
    expect(shown(reads)).toBe(`look: ${key.slice(0, 5)}`);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("two choices interleaved keep their own texts", async () => {
    const reads = await streamed([
      event(key.slice(0, 10), 0),
      event("other ", 1),
      event(key.slice(10), 0),
      "data: [DONE]\n\n",
    ]);
    expect(reads.join("")).not.toContain(key.slice(0, 10));
    expect(reads.join("")).toContain(redacted);
  });

  it("Anthropic's text_delta and input_json_delta events", async () => {
    const delta = (type: string, field: string, value: string) =>
      `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type, [field]: value } })}\n\n`;
    for (const [type, field] of [
      ["text_delta", "text"],
      ["input_json_delta", "partial_json"],
    ] as const) {
      const reads = await streamed([
        delta(type, field, `{"k":"${key.slice(0, 12)}`),
        delta(type, field, `${key.slice(12)}"}`),
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      ]);
      expect(reads.join("")).not.toContain(key.slice(0, 12));
      expect(reads.join("")).toContain(redacted);
      expect(reads.join("")).toContain("event: content_block_delta\n");
    }
  });
});
