import { describe, expect, it } from "vitest";
import {
  createStreamParser,
  getProvider,
  ProviderResponseError,
} from "../../src/providers/index.ts";
import { upstreamBaseUrlOf } from "../../src/providers/upstreams.ts";
import { conversation, fixtureText, readFixtureJson } from "./helpers.ts";

const google = getProvider("google-ai-studio");

describe("google-ai-studio adapter", () => {
  it("targets generateContent, or streamGenerateContent with alt=sse, with x-goog-api-key", () => {
    expect(google).toMatchObject({
      format: "google",
    });
    expect(upstreamBaseUrlOf("google-ai-studio")).toBe(
      "https://generativelanguage.googleapis.com/",
    );
    expect(google.endpoint("gemini-2.5-flash", conversation)).toBe(
      "v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    );
    expect(google.endpoint("models/gemini-2.5-flash", { messages: [] })).toBe(
      "v1beta/models/gemini-2.5-flash:generateContent",
    );
    expect(google.authHeaders("AIza-test")).toStrictEqual({ "x-goog-api-key": "AIza-test" });
  });

  it("sends contents with model turns, a systemInstruction and a generationConfig", () => {
    expect(google.requestBody("gemini-2.5-flash", conversation)).toStrictEqual({
      contents: [
        { role: "user", parts: [{ text: "What is the capital of France?" }] },
        { role: "model", parts: [{ text: "Paris." }] },
        { role: "user", parts: [{ text: "And of Italy?" }] },
      ],
      systemInstruction: { parts: [{ text: "You are a terse geography tutor." }] },
      generationConfig: { maxOutputTokens: 256, temperature: 0.2, stopSequences: ["\n\n"] },
    });
  });

  it("leaves out systemInstruction and generationConfig when there is nothing to say", () => {
    const messages = [{ role: "user", content: "Hi" }] as const;
    expect(google.requestBody("gemini-2.5-flash", { messages })).toStrictEqual({
      contents: [{ role: "user", parts: [{ text: "Hi" }] }],
    });
    expect(google.requestBody("gemini-2.5-flash", { messages, topP: 0.8 })).toMatchObject({
      generationConfig: { topP: 0.8 },
    });
  });

  it("reads the response fixture, counting thinking tokens as output", () => {
    expect(
      google.parseResponse(readFixtureJson("google-ai-studio", "response.json")),
    ).toStrictEqual({
      text: fixtureText,
      provider: "google-ai-studio",
      model: "gemini-2.5-flash",
      usage: { tokensIn: 17, tokensOut: 31 },
      finishReason: "stop",
    });
  });

  it("reads a blocked prompt as an empty content_filter answer", () => {
    expect(
      google.parseResponse(readFixtureJson("google-ai-studio", "response-blocked.json")),
    ).toStrictEqual({
      text: "",
      provider: "google-ai-studio",
      model: "gemini-2.5-flash",
      usage: { tokensIn: 9, tokensOut: 0 },
      finishReason: "content_filter",
    });
  });

  it("skips thought parts and maps finish reasons", () => {
    const body = {
      candidates: [
        {
          content: {
            role: "model",
            parts: [{ text: "Thinking...", thought: true }, { text: "Rome" }],
          },
          finishReason: "MAX_TOKENS",
        },
      ],
    };
    expect(google.parseResponse(body, "gemini-2.5-pro")).toMatchObject({
      text: "Rome",
      model: "gemini-2.5-pro",
      finishReason: "length",
    });
    const reasons = {
      STOP: "stop",
      MAX_TOKENS: "length",
      SAFETY: "content_filter",
      RECITATION: "content_filter",
      MALFORMED_FUNCTION_CALL: "error",
      OTHER: "unknown",
    };
    for (const [wire, normalised] of Object.entries(reasons)) {
      const candidates = [{ content: { parts: [] }, finishReason: wire }];
      expect(google.parseResponse({ candidates }).finishReason).toBe(normalised);
    }
  });

  it("rejects a 200 body without candidates", () => {
    expect(() => google.parseResponse({ modelVersion: "gemini-2.5-flash" })).toThrow(
      ProviderResponseError,
    );
  });

  it.each([
    [429, "error-429.json", "RESOURCE_EXHAUSTED", "You exceeded your current quota"],
    [
      400,
      "error-400-context.json",
      "INVALID_ARGUMENT",
      "exceeds the maximum number of tokens allowed (1048576)",
    ],
    [401, "error-401.json", "UNAUTHENTICATED", "invalid authentication credentials"],
  ])("reads the HTTP %i error fixture %s", (status, file, type, message) => {
    const error = google.parseError(status, readFixtureJson("google-ai-studio", file));
    expect(error).toStrictEqual({ status, type, message: expect.stringContaining(message) });
  });

  it("reads an error wrapped in an array", () => {
    const body = [readFixtureJson("google-ai-studio", "error-429.json")];
    expect(google.parseError(429, body)).toMatchObject({ type: "RESOURCE_EXHAUSTED" });
  });

  it("ignores stream events after the finishing chunk", () => {
    const parse = createStreamParser(google.slug);
    const last = { candidates: [{ content: { parts: [{ text: "Rome" }] }, finishReason: "STOP" }] };
    expect(parse({ data: JSON.stringify(last) })).toStrictEqual([
      { type: "text", text: "Rome" },
      { type: "finish", reason: "stop" },
      { type: "done" },
    ]);
    expect(parse({ data: JSON.stringify(last) })).toStrictEqual([]);
  });

  it("reads an error chunk inside a stream", () => {
    const parse = createStreamParser(google.slug);
    const chunk = {
      error: {
        code: 503,
        message: "The model is overloaded. Please try again later.",
        status: "UNAVAILABLE",
      },
    };
    expect(parse({ data: JSON.stringify(chunk) })).toStrictEqual([
      {
        type: "error",
        error: {
          status: 503,
          type: "UNAVAILABLE",
          message: "The model is overloaded. Please try again later.",
        },
      },
    ]);
  });
});
