/**
 * @module
 * Test helpers for the provider adapters: fixture loading, byte streams cut into chunks, and a
 * summary of the deltas a stream parser produced.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createStreamParser } from "../../src/providers/index.ts";
import { parseSseStream } from "../../src/providers/sse.ts";
import type {
  ChatRequest,
  FinishReason,
  ProviderAdapter,
  ProviderErrorInfo,
  StreamDelta,
  TokenUsage,
} from "../../src/providers/types.ts";

const fixturesDirectory = new URL("../__fixtures__/providers/", import.meta.url);

/** The text of `test/__fixtures__/providers/<provider>/<name>`. */
export function readFixtureText(provider: string, name: string): string {
  return readFileSync(fileURLToPath(new URL(`${provider}/${name}`, fixturesDirectory)), "utf8");
}

/** A JSON fixture, parsed. */
export function readFixtureJson(provider: string, name: string): unknown {
  return JSON.parse(readFixtureText(provider, name)) as unknown;
}

/** A fixture's raw bytes. */
export function readFixtureBytes(provider: string, name: string): Uint8Array {
  return new Uint8Array(
    readFileSync(fileURLToPath(new URL(`${provider}/${name}`, fixturesDirectory))),
  );
}

/** A conversation with every role and every request option set. */
export const conversation: ChatRequest = {
  messages: [
    { role: "system", content: "You are a terse geography tutor." },
    { role: "user", content: "What is the capital of France?" },
    { role: "assistant", content: "Paris." },
    { role: "user", content: "And of Italy?" },
  ],
  maxTokens: 256,
  temperature: 0.2,
  stop: ["\n\n"],
  stream: true,
};

/** The text every fixture answers with (non-ASCII on purpose, to split UTF-8 characters). */
export const fixtureText = "Rome — la Città Eterna. ☀️";

/** A byte stream that delivers the given chunks one read at a time. */
export function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/** Cuts bytes at the given positions (sorted or not, duplicates allowed). */
export function splitAt(bytes: Uint8Array, positions: readonly number[]): Uint8Array[] {
  const cuts = [
    ...new Set(positions.map((position) => Math.max(0, Math.min(bytes.length, position)))),
  ];
  cuts.sort((left, right) => left - right);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    chunks.push(bytes.subarray(start, cut));
    start = cut;
  }
  return chunks;
}

/** Runs chunks through `parseSseStream` and a fresh stream parser of the adapter. */
export async function collectDeltas(
  adapter: ProviderAdapter,
  chunks: readonly Uint8Array[],
): Promise<StreamDelta[]> {
  const parse = createStreamParser(adapter.slug);
  const deltas: StreamDelta[] = [];
  for await (const event of parseSseStream(streamOf(chunks))) deltas.push(...parse(event));
  return deltas;
}

/** What a stream said, put together. */
export interface StreamSummary {
  readonly text: string;
  readonly usage: Partial<TokenUsage>;
  readonly finish: FinishReason | undefined;
  readonly done: boolean;
  readonly errors: readonly ProviderErrorInfo[];
}

/** Joins text deltas, merges usage (latest value wins) and records finish, done and errors. */
export function summarise(deltas: readonly StreamDelta[]): StreamSummary {
  let text = "";
  let usage: Partial<TokenUsage> = {};
  let finish: FinishReason | undefined;
  let done = false;
  const errors: ProviderErrorInfo[] = [];
  for (const delta of deltas) {
    if (delta.type === "text") text += delta.text;
    else if (delta.type === "usage") usage = { ...usage, ...delta.usage };
    else if (delta.type === "finish") finish = delta.reason;
    else if (delta.type === "done") done = true;
    else errors.push(delta.error);
  }
  return { text, usage, finish, done, errors };
}

/** The byte offset just after the content of the last `data:` line: the terminal event. */
export function terminalEventEnd(bytes: Uint8Array): number {
  const text = new TextDecoder().decode(bytes);
  const start = text.lastIndexOf("data:");
  const lineEnd = text.slice(start).search(/\r|\n/);
  const endInText = lineEnd === -1 ? text.length : start + lineEnd;
  return new TextEncoder().encode(text.slice(0, endInText)).length;
}
