/**
 * @module
 * The smallest gateway stand-in: a loopback HTTP server that reads each request body and answers
 * one fixed OpenAI chat completion with `cf-aig-step: 0`, as AI Gateway's universal endpoint does
 * when its first step serves. Against it, a call's time is almost all client and transport, which
 * isolates the client's own cost best.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { canonicalAnswer } from "../../../src/emulator/mocks/index.ts";

/** A running loopback server. */
export interface LoopbackServer {
  readonly url: string;
  /** Requests answered so far. */
  requests(): number;
  close(): Promise<void>;
}

/** The fixed answer: an OpenAI `chat.completion` for `model`. */
export function openAiCompletion(model: string): string {
  return JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 1_777_000_000,
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: canonicalAnswer("openai", model), refusal: null },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: { prompt_tokens: 6, completion_tokens: 12, total_tokens: 18 },
  });
}

/** Starts the server on 127.0.0.1 at a free port. */
export async function startLoopbackServer(model: string): Promise<LoopbackServer> {
  const body = Buffer.from(openAiCompletion(model));
  let answered = 0;
  const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
    request.resume();
    request.on("end", () => {
      answered++;
      response.writeHead(200, {
        "content-type": "application/json",
        "content-length": body.byteLength,
        "cf-aig-step": "0",
      });
      response.end(body);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => answered,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
