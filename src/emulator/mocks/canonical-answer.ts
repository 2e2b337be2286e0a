/**
 * @module
 * The deterministic answer every mock provider gives: a fixed sentence naming the provider and
 * the model, ending with {@link answerEndMarker} so a truncated answer is easy to spot, with token
 * counts derived from words (tokens in = words of the request's message text, tokens out = words
 * of the answer sent).
 */

/** The last word of every complete canonical answer. */
export const answerEndMarker = "[end]";

/** Words per streamed chunk: the canonical answer streams as several chunks. */
const wordsPerChunk = 2;

/**
 * The full answer a mock provider gives for a model.
 * @example
 * canonicalAnswer("openai", "gpt-4o-mini");
 * // "Mock answer from openai model gpt-4o-mini: the emulated provider is healthy. [end]"
 */
export function canonicalAnswer(provider: string, model: string): string {
  return `Mock answer from ${provider} model ${model}: the emulated provider is healthy. ${answerEndMarker}`;
}

/** The mock's token count for a text: its whitespace-separated words. */
export function countTokens(text: string): number {
  return words(text).length;
}

/** Words with the whitespace that follows each, so joining them gives the text back. */
function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}

/** What a mock answers for one request, before it is put in a provider's wire format. */
export interface MockAnswer {
  readonly provider: string;
  readonly model: string;
  /** Response id, unique within one set of mock providers. */
  readonly id: string;
  /** Epoch ms by the mock's clock. */
  readonly createdAt: number;
  /** The text sent: the canonical answer, cut to `maxTokens` words when that is smaller. */
  readonly text: string;
  /** The text split into stream chunks; joined, they give `text`. */
  readonly chunks: readonly string[];
  readonly tokensIn: number;
  readonly tokensOut: number;
  /** `length` when the answer was cut by `maxTokens`. */
  readonly finish: "stop" | "length";
}

export interface BuildAnswerOptions {
  readonly provider: string;
  readonly model: string;
  readonly id: string;
  readonly createdAt: number;
  /** All message text of the request, joined. */
  readonly promptText: string;
  /** The request's output token limit, if any. */
  readonly maxTokens?: number;
  /**
   * The assistant text the request ends with, on a provider that continues it: the answer then
   * goes on from the canonical answer's word after as many words as the prefill has, so a
   * continued answer still ends with {@link answerEndMarker}.
   */
  readonly prefill?: string;
}

/** Builds the answer for one request: canonical text, truncation, usage and stream chunks. */
export function buildAnswer(options: BuildAnswerOptions): MockAnswer {
  const canonical = words(canonicalAnswer(options.provider, options.model));
  const all =
    options.prefill === undefined ? canonical : canonical.slice(countTokens(options.prefill));
  const limit = options.maxTokens ?? all.length;
  const kept = all.slice(0, Math.max(0, limit));
  const truncated = kept.length < all.length;
  // A continuation starts with the space that separates it from the prefill.
  const lead = options.prefill === undefined || kept.length === 0 ? "" : " ";
  const text = lead + kept.join("").trimEnd();
  const chunkWords = words(text);
  const chunks: string[] = [];
  for (let index = 0; index < chunkWords.length; index += wordsPerChunk) {
    chunks.push(chunkWords.slice(index, index + wordsPerChunk).join(""));
  }
  if (chunks.length > 0) chunks[0] = lead + chunks[0];
  return {
    provider: options.provider,
    model: options.model,
    id: options.id,
    createdAt: options.createdAt,
    text,
    chunks: chunks.length === 0 ? [""] : chunks,
    tokensIn: countTokens(options.promptText),
    tokensOut: kept.length,
    finish: truncated ? "length" : "stop",
  };
}
