/**
 * @module
 * Reads Gemini `streamGenerateContent?alt=sse` streams. Each `data:` event is a partial
 * GenerateContentResponse; there is no `[DONE]`, so the chunk whose candidate carries a
 * `finishReason` (or a prompt block) ends the stream and `done` follows its `finish`.
 */

import {
  googleFinishReason,
  readBlockReason,
  readCandidateText,
  readGoogleStreamError,
  readGoogleUsage,
} from "./google-ai-studio-format.ts";
import { readArray, readString } from "./json.ts";
import { type ProviderIdentity, readStreamJson } from "./provider-body.ts";
import type { StreamDelta, StreamParser } from "./types.ts";

/** A stream parser for one Gemini streamed response. Events after the end are ignored. */
export function createGoogleStreamParser(provider: ProviderIdentity): StreamParser {
  let ended = false;
  return (event) => {
    if (ended) return [];
    const parsed = readStreamJson(provider, event);
    if (!parsed.ok) return [parsed.delta];
    const chunk = parsed.value;
    const error = readGoogleStreamError(chunk);
    if (error !== undefined) return [error];

    const deltas: StreamDelta[] = [];
    const candidate = readArray(chunk, "candidates")?.[0];
    const text = readCandidateText(candidate);
    if (text !== "") deltas.push({ type: "text", text });
    const usage = readGoogleUsage(chunk.usageMetadata);
    if (usage !== undefined) deltas.push({ type: "usage", usage });
    const reason = readString(candidate, "finishReason");
    const blocked = candidate === undefined && readBlockReason(chunk) !== undefined;
    if (reason !== undefined || blocked) {
      ended = true;
      const finish = blocked ? "content_filter" : googleFinishReason(reason);
      deltas.push({ type: "finish", reason: finish }, { type: "done" });
    }
    return deltas;
  };
}
