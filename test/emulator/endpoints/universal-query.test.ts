/**
 * The universal body as the client wrote it (scanned by src/wire/universal-body.ts, whose table
 * test holds the scan): an upstream receives each step's query as its own bytes, whitespace and
 * number spelling included; a body with a member written twice is refused before anything is
 * forwarded (400, code 2008 — the emulator's choice, in docs/emulator.md's table of guesses).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import {
  accountId,
  emulatorWith,
  openAiCompletion,
  postJson,
  type StubRequest,
  startStub,
  testConfig,
} from "../helpers.ts";

let emulator: Emulator | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await emulator?.close();
  await close?.();
  emulator = undefined;
  close = undefined;
});

describe("a universal step's query upstream", () => {
  it("is sent as the client wrote it, not re-serialised", async () => {
    const upstream = await startStub((_request: StubRequest, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(openAiCompletion("hello")));
    });
    close = upstream.close;
    ({ emulator } = await emulatorWith({ upstreams: { openai: upstream.url } }));
    const query =
      '{ "model": "gpt-4o-mini",\n  "messages": [{"role": "user", "content": "caf\\u00e9"}], "temperature": 1.0 }';
    const text = `[{"provider": "openai", "endpoint": "chat/completions", "headers": {"authorization": "Bearer test-key"}, "query": ${query}}]`;
    const response = await postJson(`${emulator.url}/v1/${accountId}/open`, text);
    expect(response.status).toBe(200);
    await response.text();
    expect(upstream.requests.map((request) => request.body)).toEqual([query]);
  });

  it("still goes as JSON when the client spelled its key with escapes", async () => {
    const upstream = await startStub((_request: StubRequest, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(openAiCompletion("hello")));
    });
    close = upstream.close;
    ({ emulator } = await emulatorWith({
      config: testConfig(),
      upstreams: { openai: upstream.url },
    }));
    const text = `[{"provider": "openai", "endpoint": "chat/completions", "headers": {"authorization": "Bearer test-key"}, "quer\\u0079": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}}]`;
    const response = await postJson(`${emulator.url}/v1/${accountId}/open`, text);
    expect(response.status).toBe(200);
    await response.text();
    expect(upstream.requests.map((request) => JSON.parse(request.body))).toEqual([
      { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
    ]);
  });
});

describe("a universal body with a member written twice", () => {
  const step = (members: string) =>
    `{"endpoint": "chat/completions", "headers": {"authorization": "Bearer test-key"}, "query": {"model": "gpt-4o-mini", "messages": []}, ${members}}`;

  it.each([
    [
      'two "provider" members in a step',
      `[${step('"provider": "anthropic", "provider": "openai"')}]`,
      'step 0 has two "provider" members',
    ],
    [
      "duplicate top-level members of a one-step body",
      step('"provider": "openai", "endpoint": "embeddings"'),
      'step 0 has two "endpoint" members',
    ],
    [
      "a duplicate in a later step",
      `[${step('"provider": "openai"')}, ${step('"provider": "openai", "provid\\u0065r": "groq"')}]`,
      'step 1 has two "provider" members',
    ],
  ])("is a 400 before anything is forwarded: %s", async (_name, text, message) => {
    const upstream = await startStub((_request: StubRequest, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(openAiCompletion("hello")));
    });
    close = upstream.close;
    ({ emulator } = await emulatorWith({ upstreams: { openai: upstream.url } }));
    const response = await postJson(`${emulator.url}/v1/${accountId}/open`, text);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: number; message: string }[] };
    expect(body.error).toEqual([
      { code: 2008, message: `Malformed universal request: ${message}; send each member once.` },
    ]);
    expect(upstream.requests).toEqual([]);
  });
});
