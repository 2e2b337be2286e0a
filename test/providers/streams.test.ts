import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createStreamParser, getProvider } from "../../src/providers/index.ts";
import type { TokenUsage } from "../../src/providers/types.ts";
import {
  collectDeltas,
  fixtureText,
  readFixtureBytes,
  splitAt,
  summarise,
  terminalEventEnd,
} from "./helpers.ts";

/** What each provider's `stream.sse` fixture says. */
const expectedStreams: readonly { provider: string; usage: TokenUsage }[] = [
  { provider: "openai", usage: { tokensIn: 38, tokensOut: 11 } },
  { provider: "groq", usage: { tokensIn: 52, tokensOut: 11 } },
  { provider: "mistral", usage: { tokensIn: 41, tokensOut: 12 } },
  { provider: "deepseek", usage: { tokensIn: 36, tokensOut: 10 } },
  // xAI leaves reasoning tokens out of completion_tokens: 11 + 229.
  { provider: "grok", usage: { tokensIn: 33, tokensOut: 240 } },
  { provider: "openrouter", usage: { tokensIn: 30, tokensOut: 9 } },
  { provider: "anthropic", usage: { tokensIn: 31, tokensOut: 14 } },
  { provider: "workers-ai", usage: { tokensIn: 42, tokensOut: 12 } },
  // Gemini thinking tokens are billed as output: 12 + 19.
  { provider: "google-ai-studio", usage: { tokensIn: 17, tokensOut: 31 } },
];

describe.each(expectedStreams)("$provider stream fixture", ({ provider, usage }) => {
  const adapter = getProvider(provider);
  const bytes = readFixtureBytes(provider, "stream.sse");
  const complete = { text: fixtureText, usage, finish: "stop", done: true, errors: [] };

  it("reads the whole stream in one chunk", async () => {
    const deltas = await collectDeltas(adapter, [bytes]);
    expect(summarise(deltas)).toStrictEqual(complete);
    expect(deltas.at(-1)).toStrictEqual({ type: "done" });
    expect(deltas.filter((delta) => delta.type === "done")).toHaveLength(1);
  });

  it("reads the same result when split at every byte boundary", async () => {
    for (let position = 0; position <= bytes.length; position++) {
      const summary = summarise(await collectDeltas(adapter, splitAt(bytes, [position])));
      expect(summary, `split at byte ${position}`).toStrictEqual(complete);
    }
  });

  it("reads the same result in random small chunks", async () => {
    const positions = fc.array(fc.integer({ min: 0, max: bytes.length }), { maxLength: 200 });
    await fc.assert(
      fc.asyncProperty(positions, async (cuts) => {
        const summary = summarise(await collectDeltas(adapter, splitAt(bytes, cuts)));
        expect(summary).toStrictEqual(complete);
      }),
      { numRuns: 100 },
    );
  });

  it("gives no done when the stream is cut before its end", async () => {
    const end = terminalEventEnd(bytes);
    expect(end).toBeGreaterThan(bytes.length - 5);
    for (let position = 0; position < end; position++) {
      const summary = summarise(await collectDeltas(adapter, [bytes.subarray(0, position)]));
      expect(summary.done, `cut at byte ${position} of ${end}`).toBe(false);
    }
  });

  it("turns a malformed JSON event into an error delta and keeps reading", async () => {
    const text = new TextDecoder().decode(bytes);
    const firstBreak = text.search(/\r?\n\r?\n/);
    const broken = `${text.slice(0, firstBreak)}\n\ndata: {"choices":[{"delta":\n\n${text.slice(firstBreak)}`;
    const summary = summarise(await collectDeltas(adapter, [new TextEncoder().encode(broken)]));
    expect(summary.errors).toHaveLength(1);
    expect(summary.errors[0]).toMatchObject({ status: 502, type: "invalid_stream_event" });
    expect(summary.errors[0]?.message).toContain(`${adapter.displayName} sent a stream event`);
    expect(summary).toMatchObject({ text: fixtureText, done: true });
  });
});

describe("stream errors sent by the provider", () => {
  it("reads an Anthropic error event as an error delta with the documented status", async () => {
    const anthropic = getProvider("anthropic");
    const deltas = await collectDeltas(anthropic, [
      readFixtureBytes("anthropic", "stream-error.sse"),
    ]);
    expect(summarise(deltas)).toStrictEqual({
      text: "Rome",
      usage: { tokensIn: 31 },
      finish: undefined,
      done: false,
      errors: [{ status: 529, type: "overloaded_error", message: "Overloaded" }],
    });
  });

  it("reads an OpenRouter mid-stream error chunk as an error delta", async () => {
    const openRouter = getProvider("openrouter");
    const deltas = await collectDeltas(openRouter, [
      readFixtureBytes("openrouter", "stream-error.sse"),
    ]);
    expect(summarise(deltas).errors).toStrictEqual([
      { status: 502, type: "502", message: "Provider returned error: upstream connection reset" },
    ]);
  });

  it("ends a blocked Gemini prompt with a content_filter finish", () => {
    const parse = createStreamParser("google-ai-studio");
    const data = JSON.stringify({ promptFeedback: { blockReason: "SAFETY" } });
    expect(parse({ data })).toStrictEqual([
      { type: "finish", reason: "content_filter" },
      { type: "done" },
    ]);
    expect(parse({ data: '{"candidates":[]}' })).toStrictEqual([]);
  });
});
