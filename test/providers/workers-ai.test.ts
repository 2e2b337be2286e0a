import { describe, expect, it } from "vitest";
import {
  createStreamParser,
  getProvider,
  ProviderResponseError,
} from "../../src/providers/index.ts";
import { upstreamBaseUrlOf } from "../../src/providers/upstreams.ts";
import { conversation, fixtureText, readFixtureJson } from "./helpers.ts";

const workersAi = getProvider("workers-ai");
const model = "@cf/meta/llama-3.1-8b-instruct";

describe("workers-ai adapter", () => {
  it("uses the model as the endpoint, with Bearer auth", () => {
    expect(workersAi).toMatchObject({ format: "workers-ai" });
    expect(upstreamBaseUrlOf("workers-ai")).toBe("https://api.cloudflare.com/client/v4/ai/run/");
    expect(workersAi.endpoint(model, conversation)).toBe("@cf/meta/llama-3.1-8b-instruct");
    expect(workersAi.authHeaders("cf-token")).toStrictEqual({ authorization: "Bearer cf-token" });
  });

  it("sends messages, max_tokens, temperature and stream (Workers AI takes no stop sequences)", () => {
    expect(workersAi.requestBody(model, conversation)).toStrictEqual({
      messages: [
        { role: "system", content: "You are a terse geography tutor." },
        { role: "user", content: "What is the capital of France?" },
        { role: "assistant", content: "Paris." },
        { role: "user", content: "And of Italy?" },
      ],
      max_tokens: 256,
      temperature: 0.2,
      stream: true,
    });
    expect(workersAi.requestBody(model, { messages: [], topP: 0.5 })).toStrictEqual({
      messages: [],
      top_p: 0.5,
    });
  });

  it("reads the response fixture, naming the requested model", () => {
    expect(
      workersAi.parseResponse(readFixtureJson("workers-ai", "response.json"), model),
    ).toStrictEqual({
      text: fixtureText,
      provider: "workers-ai",
      model,
      usage: { tokensIn: 42, tokensOut: 12 },
      finishReason: "stop",
    });
  });

  it("reads tool calls and a reported finish reason", () => {
    const toolCall = {
      result: { response: null, tool_calls: [{ name: "lookup", arguments: {} }] },
      success: true,
    };
    expect(workersAi.parseResponse(toolCall)).toMatchObject({
      text: "",
      finishReason: "tool_calls",
    });
    const truncated = { result: { response: "Ro", finish_reason: "length" }, success: true };
    expect(workersAi.parseResponse(truncated)).toMatchObject({
      text: "Ro",
      finishReason: "length",
    });
  });

  it("rejects a success: false body and a body without result.response", () => {
    const failed = readFixtureJson("workers-ai", "error-401.json");
    expect(() => workersAi.parseResponse(failed)).toThrow(ProviderResponseError);
    expect(() => workersAi.parseResponse(failed)).toThrow(/Authentication error/);
    expect(() => workersAi.parseResponse({ result: {}, success: true })).toThrow(
      /without result.response/,
    );
  });

  it.each([
    [429, "error-429.json", "3040", "Capacity temporarily exceeded"],
    [400, "error-400-context.json", "5021", "exceeded this model context window limit (8192)"],
    [401, "error-401.json", "10000", "Authentication error"],
  ])("reads the HTTP %i error fixture %s", (status, file, type, message) => {
    const error = workersAi.parseError(status, readFixtureJson("workers-ai", file));
    expect(error).toStrictEqual({ status, type, message: expect.stringContaining(message) });
  });

  it("reads an AI Gateway error body too", () => {
    const body = {
      success: false,
      result: [],
      messages: [],
      error: [{ code: 2003, message: "Rate limited" }],
    };
    expect(workersAi.parseError(429, body)).toStrictEqual({
      status: 429,
      type: "2003",
      message: "Rate limited",
    });
  });

  it("emits one finish before done, even without a reported reason", () => {
    const parse = createStreamParser(workersAi.slug);
    expect(parse({ data: '{"response":"Hi","p":"abc"}' })).toStrictEqual([
      { type: "text", text: "Hi" },
    ]);
    expect(parse({ data: "[DONE]" })).toStrictEqual([
      { type: "finish", reason: "stop" },
      { type: "done" },
    ]);
    const reported = createStreamParser(workersAi.slug);
    expect(reported({ data: '{"response":"","finish_reason":"length"}' })).toStrictEqual([
      { type: "finish", reason: "length" },
    ]);
    expect(reported({ data: "[DONE]" })).toStrictEqual([{ type: "done" }]);
  });
});
