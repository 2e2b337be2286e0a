import { describe, expect, it } from "vitest";
import {
  getProvider,
  ProviderResponseError,
  upstreamBaseUrlOf,
} from "../../src/providers/index.ts";
import {
  conversation,
  fixtureText,
  readFixtureBytes,
  readFixtureJson,
  readFixtureText,
} from "./helpers.ts";
import { openAiStyleCases as cases } from "./openai-compatible-cases.ts";

describe.each(cases)("$provider adapter", (testCase) => {
  const adapter = getProvider(testCase.provider);

  it("targets the provider's chat endpoint with Bearer auth", () => {
    expect(adapter).toMatchObject({
      slug: testCase.provider,
      format: "openai",
    });
    expect(upstreamBaseUrlOf(testCase.provider)).toBe(testCase.upstreamBaseUrl);
    expect(adapter.endpoint(testCase.model, conversation)).toBe(testCase.endpoint);
    expect(adapter.authHeaders("sk-test")).toStrictEqual({ authorization: "Bearer sk-test" });
  });

  it("sends every message and option in the provider's body", () => {
    expect(adapter.requestBody(testCase.model, conversation)).toStrictEqual({
      model: testCase.model,
      messages: [
        { role: "system", content: "You are a terse geography tutor." },
        { role: "user", content: "What is the capital of France?" },
        { role: "assistant", content: "Paris." },
        { role: "user", content: "And of Italy?" },
      ],
      [testCase.maxTokensField]: 256,
      temperature: 0.2,
      stop: ["\n\n"],
      stream: true,
      ...(testCase.sendsStreamOptions ? { stream_options: { include_usage: true } } : {}),
    });
  });

  it("leaves out options the request does not set", () => {
    const body = adapter.requestBody(testCase.model, {
      messages: [{ role: "user", content: "Hi" }],
      stop: [],
    });
    expect(body).toStrictEqual({
      model: testCase.model,
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(adapter.requestBody(testCase.model, { messages: [], topP: 0.9 })).toMatchObject({
      top_p: 0.9,
    });
  });

  it("reads the response fixture, as parsed JSON, text or bytes", () => {
    const expected = {
      text: fixtureText,
      provider: testCase.provider,
      model: testCase.answeredModel,
      usage: testCase.usage,
      finishReason: "stop",
    };
    expect(
      adapter.parseResponse(readFixtureJson(testCase.provider, "response.json")),
    ).toStrictEqual(expected);
    expect(
      adapter.parseResponse(readFixtureText(testCase.provider, "response.json")),
    ).toStrictEqual(expected);
    expect(
      adapter.parseResponse(readFixtureBytes(testCase.provider, "response.json")),
    ).toStrictEqual(expected);
  });

  it.each([
    [429, "error-429.json", "rateLimit"],
    [400, "error-400-context.json", "contextLength"],
    [401, "error-401.json", "badKey"],
  ] as const)("reads the HTTP %i error fixture %s", (status, file, kind) => {
    const error = adapter.parseError(status, readFixtureJson(testCase.provider, file));
    expect(error).toStrictEqual({ status, ...testCase.errors[kind] });
  });
});

describe("OpenAI-compatible response details", () => {
  const openAi = getProvider("openai");
  const answer = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    model: "gpt-4o-mini",
    choices: [{ index: 0, ...choice }],
    ...extra,
  });

  it("maps every finish reason", () => {
    const reasons = {
      stop: "stop",
      length: "length",
      content_filter: "content_filter",
      tool_calls: "tool_calls",
      function_call: "tool_calls",
      something_new: "unknown",
      toString: "unknown",
    };
    for (const [wire, normalised] of Object.entries(reasons)) {
      const result = openAi.parseResponse(
        answer({ message: { content: "x" }, finish_reason: wire }),
      );
      expect(result.finishReason).toBe(normalised);
    }
  });

  it("reads a refusal as the text, and missing usage as zero", () => {
    const result = openAi.parseResponse(
      answer({
        message: { content: null, refusal: "I can't help with that." },
        finish_reason: "stop",
      }),
    );
    expect(result).toMatchObject({
      text: "I can't help with that.",
      usage: { tokensIn: 0, tokensOut: 0 },
    });
  });

  it("falls back to the requested model when the body names none", () => {
    const result = openAi.parseResponse(
      { choices: [{ message: { content: "x" }, finish_reason: "stop" }] },
      "gpt-4o-mini",
    );
    expect(result.model).toBe("gpt-4o-mini");
  });

  it("rejects a 200 body that carries an error (OpenRouter does this)", () => {
    const body = { error: { code: 502, message: "Provider returned error" } };
    expect(() => getProvider("openrouter").parseResponse(body)).toThrow(ProviderResponseError);
    expect(() => getProvider("openrouter").parseResponse(body)).toThrow(/Provider returned error/);
  });

  it("reads Mistral's structured validation errors as text", () => {
    const error = getProvider("mistral").parseError(
      422,
      readFixtureJson("mistral", "error-422-extra.json"),
    );
    expect(error).toMatchObject({ status: 422, type: "invalid_request_error" });
    expect(error.message).toContain("Extra inputs are not permitted");
  });
});
