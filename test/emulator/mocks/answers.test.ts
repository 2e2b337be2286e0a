import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answerEndMarker,
  canonicalAnswer,
  countTokens,
  type MockProviders,
  startMockProviders,
} from "../../../src/emulator/mocks/index.ts";
import { getProvider } from "../../../src/providers/index.ts";
import { chat, formatCases, promptTokens, readError, readStream } from "./helpers.ts";

let mocks: MockProviders;

beforeAll(async () => {
  mocks = await startMockProviders({
    providers: [...formatCases.map((c) => c.provider), "groq", "mistral", "custom-acme"],
  });
});
afterAll(() => mocks.close());

describe.each(formatCases)("$provider mock", ({ provider, model }) => {
  const adapter = getProvider(provider);
  const fullText = canonicalAnswer(provider, model);

  it("answers with the canonical text and word-count usage, read by the real adapter", async () => {
    mocks.clearAttempts();
    const response = await chat(mocks, provider, { model });
    expect(response.status).toBe(200);
    const result = adapter.parseResponse(await response.text(), model);
    expect(result).toEqual({
      text: fullText,
      provider,
      model,
      usage: { tokensIn: promptTokens, tokensOut: countTokens(fullText) },
      finishReason: "stop",
    });
    expect(result.text.endsWith(answerEndMarker)).toBe(true);
    expect(mocks.attempts).toEqual([
      expect.objectContaining({
        provider,
        model,
        stream: false,
        status: 200,
        fault: null,
        auth: "valid",
      }),
    ]);
  });

  it("streams the canonical text in several chunks, ending with done", async () => {
    mocks.clearAttempts();
    const response = await chat(mocks, provider, { model, stream: true });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reading = await readStream(provider, response);
    expect(reading.text).toBe(fullText);
    expect(reading.deltas.filter((delta) => delta.type === "text").length).toBeGreaterThan(3);
    expect(reading.deltas).toContainEqual({ type: "finish", reason: "stop" });
    expect(reading.deltas).toContainEqual(
      expect.objectContaining({
        type: "usage",
        usage: expect.objectContaining({ tokensOut: countTokens(fullText) }),
      }),
    );
    expect(reading.done).toBe(true);
    expect(reading.errors).toEqual([]);
    expect(mocks.attempts[0]).toMatchObject({ stream: true, status: 200 });
  });

  it("cuts the answer at max tokens and reports the length finish reason", async () => {
    const plain = adapter.parseResponse(
      await (await chat(mocks, provider, { model, maxTokens: 4 })).text(),
      model,
    );
    expect(plain.text).toBe(fullText.split(" ").slice(0, 4).join(" "));
    expect(plain.text).not.toContain(answerEndMarker);
    expect(plain.finishReason).toBe("length");
    expect(plain.usage.tokensOut).toBe(4);

    const streamed = await readStream(
      provider,
      await chat(mocks, provider, { model, maxTokens: 4, stream: true }),
    );
    expect(streamed.text).toBe(plain.text);
    expect(streamed.deltas).toContainEqual({ type: "finish", reason: "length" });
    expect(streamed.done).toBe(true);
  });

  it("answers an unknown path with a 404 in the provider's error format", async () => {
    const response = await fetch(`${mocks.urls[provider]}no/such/endpoint`, {
      method: "POST",
      headers: { "content-type": "application/json", ...adapter.authHeaders("test-key") },
      body: "{}",
    });
    expect(response.status).toBe(404);
    const error = await readError(provider, response);
    expect(error.status).toBe(404);
    expect(error.type).not.toBe("unknown");
    expect(error.message).toContain("no/such/endpoint");
  });

  it("answers a malformed JSON body with a 400 in the provider's error format", async () => {
    const request = { messages: [{ role: "user" as const, content: "hi" }] };
    const response = await fetch(`${mocks.urls[provider]}${adapter.endpoint(model, request)}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...adapter.authHeaders("test-key") },
      body: '{"model": "x", "messages": [',
    });
    expect(response.status).toBe(400);
    const error = await readError(provider, response);
    expect(error.type).not.toBe("unknown");
    expect(error.message).toMatch(/JSON/);
  });
});

describe("a request that ends with an assistant message (a prefill)", () => {
  it("anthropic continues it: the rest of the canonical answer, after as many words", async () => {
    const model = "claude-sonnet-4-5";
    const prefill = "Mock answer from someone else:";
    const reading = await readStream(
      "anthropic",
      await chat(mocks, "anthropic", { model, stream: true, prefill }),
    );
    // Five words of prefill: the answer goes on from the canonical answer's sixth word.
    expect(reading.text).toBe(" claude-sonnet-4-5: the emulated provider is healthy. [end]");
    expect(reading.done).toBe(true);
    const plain = getProvider("anthropic").parseResponse(
      await (await chat(mocks, "anthropic", { model, prefill })).text(),
    );
    expect(plain.text).toBe(" claude-sonnet-4-5: the emulated provider is healthy. [end]");
    expect(plain.usage.tokensOut).toBe(countTokens(plain.text));
  });

  it("an OpenAI-format provider answers anew, as if there were no prefill", async () => {
    const reading = await readStream(
      "openai",
      await chat(mocks, "openai", { model: "gpt-4o-mini", stream: true, prefill: "Mock answer" }),
    );
    expect(reading.text).toBe(canonicalAnswer("openai", "gpt-4o-mini"));
  });
});

describe("OpenAI-compatible providers", () => {
  it.each(["groq", "mistral", "custom-acme"])(
    "%s answers on its own chat path",
    async (provider) => {
      const response = await chat(mocks, provider, { model: "some-model" });
      const result = getProvider(provider).parseResponse(await response.text());
      expect(result.text).toBe(canonicalAnswer(provider, "some-model"));
      expect(result.model).toBe("some-model");
    },
  );

  it("mistral streams usage without being asked, as the real API does", async () => {
    const reading = await readStream(
      "mistral",
      await chat(mocks, "mistral", { model: "mistral-small", stream: true }),
    );
    expect(reading.deltas).toContainEqual({
      type: "usage",
      usage: {
        tokensIn: promptTokens,
        tokensOut: countTokens(canonicalAnswer("mistral", "mistral-small")),
      },
    });
    expect(reading.done).toBe(true);
  });

  it("openai sends a usage chunk only when stream_options.include_usage asks for it", async () => {
    const response = await fetch(`${mocks.urls.openai}v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      }),
    });
    const reading = await readStream("openai", response);
    expect(reading.deltas.some((delta) => delta.type === "usage")).toBe(false);
    expect(reading.text).toBe(canonicalAnswer("openai", "gpt-4o"));
  });

  it("rejects a body without a model with a 400 naming the field", async () => {
    const response = await fetch(`${mocks.urls.openai}chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer k" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    expect(response.status).toBe(400);
    expect((await readError("openai", response)).message).toContain("model");
  });
});

describe("Workers AI paths", () => {
  it("accepts the model under /run/ and URL-encoded", async () => {
    for (const path of ["run/@cf/meta/llama-3.1-8b-instruct", "%40cf/meta/llama-3.1-8b-instruct"]) {
      const response = await fetch(`${mocks.urls["workers-ai"]}${path}`, {
        method: "POST",
        headers: { authorization: "Bearer k" },
        body: JSON.stringify({ prompt: "hello there" }),
      });
      const result = getProvider("workers-ai").parseResponse(
        await response.text(),
        "@cf/meta/llama-3.1-8b-instruct",
      );
      expect(result.text).toBe(canonicalAnswer("workers-ai", "@cf/meta/llama-3.1-8b-instruct"));
      expect(result.usage.tokensIn).toBe(2);
    }
  });
});
