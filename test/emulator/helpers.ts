/**
 * Shared helpers for the emulator tests: configs, a fake clock whose `sleep` advances time, tiny
 * `node:http` stub upstreams for behaviours the mocks do not produce, and request builders.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseConfig, type StepwiseConfig } from "../../src/config/index.ts";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../src/emulator/index.ts";
import type { ChatRequest } from "../../src/providers/index.ts";
import { compileUniversalRequest } from "../../src/routes/index.ts";

export const accountId = "0123456789abcdef0123456789abcdef";
export const token = "test-gateway-token";
export const messages: ChatRequest["messages"] = [
  { role: "user", content: "Say hello to the test" },
];

/** A parsed config: `gateways` are merged over a default open gateway `open`. */
export function testConfig(
  gateways: unknown[] = [],
  models: Record<string, unknown> = {},
): StepwiseConfig {
  return parseConfig({
    accountId,
    gateways: [
      {
        id: "open",
        routes: {
          default: [
            { provider: "anthropic", model: "claude-sonnet-4-5" },
            { provider: "openai", model: "gpt-4o-mini" },
          ],
        },
      },
      ...gateways,
    ],
    keys: {
      providers: [
        "anthropic",
        "openai",
        "workers-ai",
        "google-ai-studio",
        "groq",
        "mistral",
        "custom-acme",
      ],
    },
    models: {
      "anthropic/claude-sonnet-4-5": { input: 3, output: 15 },
      "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
      ...models,
    },
  });
}

/** A clock that only moves when told to, or when the emulator sleeps (backoff). */
export function fakeClock(start = Date.UTC(2026, 0, 15, 12, 0, 0)) {
  let time = start;
  const sleeps: number[] = [];
  return {
    now: () => time,
    advance(ms: number) {
      time += ms;
    },
    set(value: number) {
      time = value;
    },
    sleeps,
    async sleep(ms: number) {
      sleeps.push(ms);
      time += ms;
    },
  };
}

/** Starts an emulator with the test token and a fake clock, closed by `close()`. */
export async function emulatorWith(
  options: Partial<EmulatorOptions> & { config?: StepwiseConfig } = {},
): Promise<{ emulator: Emulator; clock: ReturnType<typeof fakeClock> }> {
  const clock = fakeClock();
  const emulator = await startEmulator({
    config: options.config ?? testConfig(),
    gatewayToken: token,
    now: clock.now,
    sleep: clock.sleep,
    onError: (error) => {
      throw error;
    },
    ...options,
  });
  return { emulator, clock };
}

/** The universal body for a config route, with a test key in every step. */
export function universalBody(
  config: StepwiseConfig,
  gatewayId: string,
  routeName = "default",
  request: Partial<ChatRequest> = {},
) {
  const gateway = config.gateways.find((candidate) => candidate.id === gatewayId)!;
  return compileUniversalRequest(
    gateway.routes[routeName]!,
    { messages, ...request },
    { keyLookup: () => "test-provider-key" },
  );
}

/** POSTs JSON with the gateway token. */
export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "cf-aig-authorization": `Bearer ${token}`,
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A recorded stub request. */
export interface StubRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

/** A tiny upstream on 127.0.0.1 answering with `handler`; records every request. */
export async function startStub(
  handler: (request: StubRequest, response: ServerResponse) => void,
): Promise<{
  url: string;
  requests: StubRequest[];
  /** Requests that arrived, including ones abandoned before their body was read. */
  arrived(): number;
  close(): Promise<void>;
}> {
  const requests: StubRequest[] = [];
  let arrived = 0;
  const server = createServer(async (request, response) => {
    arrived++;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const recorded = {
      method: request.method ?? "",
      url: request.url ?? "",
      headers: request.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(recorded);
    handler(recorded, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    arrived: () => arrived,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** An OpenAI-shaped completion body, as a stub upstream would send. */
export function openAiCompletion(text: string, model = "stub-model") {
  return {
    id: "chatcmpl-stub",
    object: "chat.completion",
    created: 1,
    model,
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
  };
}

/** Reads a whole body; resolves `{ ok: false }` when the transfer breaks. */
export async function readBody(
  response: Response,
): Promise<{ ok: true; text: string } | { ok: false; text: string; error: unknown }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { ok: true, text };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { ok: false, text, error };
  }
}

/** Every item of an async iterable (an SDK page iterator); `Array.fromAsync` needs Node 22. */
export async function collect<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const all: Item[] = [];
  for await (const item of items) all.push(item);
  return all;
}
