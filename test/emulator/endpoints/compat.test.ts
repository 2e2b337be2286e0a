import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import {
  emulatorWith,
  openAiCompletion,
  postJson,
  startStub,
  testConfig,
  token,
} from "../helpers.ts";

let emulator: Emulator;
let openai: OpenAI;
beforeEach(async () => {
  emulator = (await emulatorWith()).emulator;
  openai = new OpenAI({
    apiKey: "provider-key",
    baseURL: emulator.compatUrl("open"),
    defaultHeaders: { "cf-aig-authorization": `Bearer ${token}` },
    maxRetries: 0,
  });
});
afterEach(() => emulator.close());

describe("compat endpoint (OpenAI shape, provider/model)", () => {
  it("converts an Anthropic answer to a chat completion for the OpenAI SDK", async () => {
    const completion = await openai.chat.completions.create({
      model: "anthropic/claude-sonnet-4-5",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello" },
      ],
      max_tokens: 50,
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]!.message.content).toContain(
      "Mock answer from anthropic model claude-sonnet-4-5",
    );
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    const [attempt] = emulator.mocks!.attempts;
    expect(attempt).toMatchObject({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      auth: "valid",
      path: "/v1/messages",
    });
    expect(emulator.logs("open")[0]).toMatchObject({
      request_type: "compat",
      provider: "anthropic",
      success: true,
      // The log counts the tokens of the answer the client got.
      tokens_in: completion.usage!.prompt_tokens,
      tokens_out: completion.usage!.completion_tokens,
    });
  });

  it("logs the tokens of an OpenAI answer passed through as it came", async () => {
    const completion = await openai.chat.completions.create({
      model: "openai/gpt-4o-mini",
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(emulator.logs("open")[0]).toMatchObject({
      request_type: "compat",
      provider: "openai",
      success: true,
      tokens_in: completion.usage!.prompt_tokens,
      tokens_out: completion.usage!.completion_tokens,
    });
  });

  it("streams Google and Workers AI answers as OpenAI chunks", async () => {
    for (const model of [
      "google-ai-studio/gemini-2.5-flash",
      "workers-ai/@cf/meta/llama-3.1-8b-instruct",
    ]) {
      const stream = await openai.chat.completions.create({
        model,
        messages: [{ role: "user", content: "Hello" }],
        stream: true,
      });
      let text = "";
      let finish: string | null = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(text).toMatch(/^Mock answer from .* \[end\]$/);
      expect(finish).toBe("stop");
    }
  });

  it("passes OpenAI-format answers and streams through", async () => {
    const completion = await openai.chat.completions.create({
      model: "groq/llama-3.1-8b-instant",
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(completion.choices[0]!.message.content).toContain("Mock answer from groq");
    const stream = await openai.chat.completions.create({
      model: "openai/gpt-4o-mini",
      messages: [{ role: "user", content: "Hello" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toContain("Mock answer from openai model gpt-4o-mini");
  });

  it("returns provider errors in OpenAI's error shape", async () => {
    emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "context-length" }] });
    await expect(
      openai.chat.completions.create({
        model: "anthropic/claude-sonnet-4-5",
        messages: [{ role: "user", content: "Hello" }],
      }),
    ).rejects.toMatchObject({
      status: 400,
      error: { message: expect.stringContaining("prompt is too long") },
    });
  });

  it("treats a 200 without an answer as a failure (502), not an answer", async () => {
    emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "invalid-body" }] });
    const response = await postJson(
      `${emulator.compatUrl("open")}/chat/completions`,
      { model: "anthropic/claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] },
      { authorization: "Bearer provider-key" },
    );
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { type: "invalid_response" } });
  });

  it.each([
    [{ messages: [{ role: "user", content: "Hi" }] }],
    [{ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] }],
    [{ model: "openai/gpt-4o-mini", messages: [] }],
    [{ model: "openai/gpt-4o-mini", messages: [{ role: "robot", content: "Hi" }] }],
    [{ model: "nope/model", messages: [{ role: "user", content: "Hi" }] }],
    [{ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Hi" }], max_tokens: -1 }],
  ])("answers 400 for a bad request %#", async (body) => {
    const response = await postJson(`${emulator.compatUrl("open")}/chat/completions`, body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ success: false, error: [{ code: 2008 }] });
  });
});

describe("provider-native endpoint", () => {
  it("forwards the provider's own request and answer, with or without v1/", async () => {
    for (const path of ["openai/chat/completions", "openai/v1/chat/completions"]) {
      const response = await postJson(
        `${emulator.gatewayUrl("open")}/${path}`,
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] },
        { authorization: "Bearer provider-key" },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get("cf-aig-model")).toBe("gpt-4o-mini");
      expect(response.headers.get("cf-aig-provider")).toBe("openai");
      await response.text();
    }
    const workersAi = await postJson(
      `${emulator.gatewayUrl("open")}/workers-ai/@cf/meta/llama-3.1-8b-instruct`,
      { messages: [{ role: "user", content: "Hi" }] },
      { authorization: "Bearer provider-key" },
    );
    expect(workersAi.headers.get("cf-aig-model")).toBe("@cf/meta/llama-3.1-8b-instruct");
    expect(((await workersAi.json()) as { success: boolean }).success).toBe(true);
    expect(emulator.logs("open").map((log) => [log.request_type, log.path])).toEqual([
      ["provider", "chat/completions"],
      ["provider", "chat/completions"],
      ["provider", "@cf/meta/llama-3.1-8b-instruct"],
    ]);
  });

  it("sends the caller's headers (minus cf-aig-*) and body to an overridden upstream", async () => {
    const stub = await startStub((_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "x-upstream": "stub" });
      response.end(JSON.stringify(openAiCompletion("from the stub")));
    });
    const started = await emulatorWith({
      config: testConfig(),
      upstreams: { "custom-acme": stub.url },
    });
    try {
      const response = await postJson(
        `${started.emulator.gatewayUrl("open")}/custom-acme/v1/chat/completions?mode=fast`,
        { model: "acme-1", messages: [{ role: "user", content: "Hi" }] },
        { authorization: "Bearer acme-key", "x-trace": "t1" },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get("x-upstream")).toBe("stub");
      expect(response.headers.get("cf-aig-model")).toBe("acme-1");
      expect(
        ((await response.json()) as ReturnType<typeof openAiCompletion>).choices[0]!.message
          .content,
      ).toBe("from the stub");
      const [sent] = stub.requests;
      expect(sent!.url).toBe("/v1/chat/completions?mode=fast");
      expect(sent!.headers.authorization).toBe("Bearer acme-key");
      expect(sent!.headers["x-trace"]).toBe("t1");
      expect(Object.keys(sent!.headers).filter((name) => name.startsWith("cf-aig-"))).toEqual([]);
      expect(JSON.parse(sent!.body)).toEqual({
        model: "acme-1",
        messages: [{ role: "user", content: "Hi" }],
      });
      expect(started.emulator.logs("open")[0]).toMatchObject({ tokens_in: 5, tokens_out: 7 });
    } finally {
      await started.emulator.close();
      await stub.close();
    }
  });
});
