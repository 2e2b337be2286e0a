/**
 * @module
 * The client's own CPU per streamed answer, for the first-token benchmark: with `fetch` stubbed
 * out (it returns the same eight-chunk OpenAI stream at once, `cf-aig-step: 0`), `client.stream`
 * read to its end against what a raw caller does (make the `Response`, read and decode every
 * chunk), interleaved, in process CPU time. Both read to the end: a reader that stops early
 * cancels the call, and that cancellation (an error object with its stack) is not what a stream
 * costs. On a loaded
 * machine each CPU microsecond costs several of wall time, so this is what the client adds on an
 * idle core, whatever the wall-clock rows show.
 */
import {
  callbackRecorder,
  createGatewayClient,
  type FetchFunction,
} from "../../src/client/index.ts";
import { interleavedWithCpu } from "./cpu-interleaved.ts";
import { accountId, benchKey, gatewayId, secondary } from "./fixtures.ts";

/** µs of CPU per stream, each side. */
export interface StreamCpu {
  readonly raw: number;
  readonly client: number;
  readonly streams: number;
}

function streamBytes(): Uint8Array<ArrayBuffer> {
  const chunk = (index: number) =>
    `data: ${JSON.stringify({
      id: "chatcmpl-bench",
      object: "chat.completion.chunk",
      created: 1,
      model: secondary.model,
      choices: [{ index: 0, delta: { content: `tok${index}:` }, finish_reason: null }],
    })}\n\n`;
  const text = `${Array.from({ length: 8 }, (_, index) => chunk(index)).join("")}data: [DONE]\n\n`;
  return new TextEncoder().encode(text);
}

/** Measures both sides, `streams` each, in interleaved blocks after a warm-up. */
export async function measureStreamCpu(
  streams: number,
  progress: (text: string) => void,
): Promise<StreamCpu> {
  const bytes = streamBytes();
  const answer = () =>
    new Response(bytes, {
      status: 200,
      headers: { "content-type": "text/event-stream", "cf-aig-step": "0" },
    });
  const stubbed: FetchFunction = async () => answer();
  const client = createGatewayClient({
    accountId,
    gatewayId,
    baseUrl: "http://127.0.0.1:9",
    routes: { direct: [secondary] },
    recorder: callbackRecorder(() => undefined),
    keyLookup: benchKey,
    fetch: stubbed,
  });
  const { cpuUs } = await interleavedWithCpu(
    {
      raw: async () => {
        const response = await stubbed("http://127.0.0.1:9", { method: "POST" });
        const reader = response.body!.getReader();
        const decoder = new TextDecoder();
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          decoder.decode(next.value, { stream: true });
        }
      },
      client: async () => {
        const stream = client.stream({
          route: "direct",
          messages: [{ role: "user", content: "hi" }],
        });
        for await (const delta of stream) void delta;
        await stream.result;
      },
    },
    { count: streams, blocks: 10, warmup: Math.min(2_000, streams), progress },
  );
  return { raw: cpuUs.raw, client: cpuUs.client, streams };
}
