/**
 * @module
 * The tokens an answer used, read from a copy of its body, for configured `tpm` caps: OpenAI-style
 * `usage` (`total_tokens`, or `prompt_tokens` + `completion_tokens`), Anthropic's `usage`
 * (`input_tokens` + `output_tokens`, spread over `message_start` and `message_delta` events),
 * Google's `usageMetadata.totalTokenCount`, and Workers AI's `result.usage`. A JSON answer is read
 * whole; a stream (`text/event-stream`) event by event, keeping the largest counts it reports.
 */

type Loose = Record<string, unknown>;

const asObject = (value: unknown): Loose | undefined =>
  typeof value === "object" && value !== null ? (value as Loose) : undefined;
const asCount = (value: unknown): number => (typeof value === "number" && value >= 0 ? value : 0);

/** Input and output tokens one JSON value reports (zeros when it reports none). */
function usageOf(value: unknown): { input: number; output: number } {
  const body = asObject(value);
  const usage =
    asObject(body?.usage) ??
    asObject(asObject(body?.message)?.usage) ??
    asObject(asObject(body?.result)?.usage);
  if (usage !== undefined) {
    const input = asCount(usage.prompt_tokens) || asCount(usage.input_tokens);
    const output = asCount(usage.completion_tokens) || asCount(usage.output_tokens);
    if (input + output === 0) return { input: asCount(usage.total_tokens), output: 0 };
    return { input, output };
  }
  const google = asObject(body?.usageMetadata);
  return { input: asCount(google?.totalTokenCount), output: 0 };
}

/** The tokens `response`'s body reports; 0 when it reports none or cannot be read. */
export async function answerTokens(response: Response): Promise<number> {
  try {
    const text = await response.text();
    if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
      const { input, output } = usageOf(JSON.parse(text));
      return input + output;
    }
    let input = 0;
    let output = 0;
    for (const line of text.split(/\r?\n/)) {
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (!data.startsWith("{")) continue;
      try {
        const counts = usageOf(JSON.parse(data));
        input = Math.max(input, counts.input);
        output = Math.max(output, counts.output);
      } catch {
        // An event that is not JSON says nothing about usage.
      }
    }
    return input + output;
  } catch {
    return 0;
  }
}
