import { describe, expect, it } from "vitest";
import {
  createStreamParser,
  getProvider,
  ProviderResponseError,
} from "../../src/providers/index.ts";
import { upstreamBaseUrlOf } from "../../src/providers/upstreams.ts";
import { conversation, fixtureText, readFixtureJson } from "./helpers.ts";

const anthropic = getProvider("anthropic");

describe("anthropic adapter", () => {
  it("targets v1/messages with x-api-key and anthropic-version", () => {
    expect(anthropic).toMatchObject({ format: "anthropic" });
    expect(upstreamBaseUrlOf("anthropic")).toBe("https://api.anthropic.com/");
    expect(anthropic.endpoint("claude-sonnet-4-5", conversation)).toBe("v1/messages");
    expect(anthropic.authHeaders("sk-ant-test")).toStrictEqual({
      "x-api-key": "sk-ant-test",
      "anthropic-version": "2023-06-01",
    });
  });

  it("moves system messages to a top-level system string and renames stop", () => {
    expect(anthropic.requestBody("claude-sonnet-4-5", conversation)).toStrictEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 256,
      system: "You are a terse geography tutor.",
      messages: [
        { role: "user", content: "What is the capital of France?" },
        { role: "assistant", content: "Paris." },
        { role: "user", content: "And of Italy?" },
      ],
      temperature: 0.2,
      stop_sequences: ["\n\n"],
      stream: true,
    });
  });

  it("defaults max_tokens to 1024, joins system messages and leaves out unset options", () => {
    const body = anthropic.requestBody("claude-haiku-4-5", {
      messages: [
        { role: "system", content: "Be brief." },
        { role: "system", content: "Answer in French." },
        { role: "user", content: "Hi" },
      ],
      topP: 0.9,
    });
    expect(body).toStrictEqual({
      model: "claude-haiku-4-5",
      max_tokens: 1024,
      system: "Be brief.\n\nAnswer in French.",
      messages: [{ role: "user", content: "Hi" }],
      top_p: 0.9,
    });
    expect(
      anthropic.requestBody("m", { messages: [{ role: "user", content: "Hi" }] }),
    ).not.toHaveProperty("system");
  });

  it("reads the response fixture", () => {
    expect(anthropic.parseResponse(readFixtureJson("anthropic", "response.json"))).toStrictEqual({
      text: fixtureText,
      provider: "anthropic",
      model: "claude-sonnet-4-5-20250929",
      usage: { tokensIn: 31, tokensOut: 14 },
      finishReason: "stop",
    });
  });

  it("joins text blocks only, counts cached prompt tokens as input and maps stop reasons", () => {
    const body = {
      model: "claude-sonnet-4-5",
      content: [
        { type: "thinking", thinking: "Italy...", signature: "c2ln" },
        { type: "text", text: "Rome" },
        { type: "tool_use", id: "toolu_01", name: "lookup", input: {} },
        { type: "text", text: "." },
      ],
      stop_reason: "tool_use",
      usage: {
        input_tokens: 5,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 900,
        output_tokens: 7,
      },
    };
    expect(anthropic.parseResponse(body)).toMatchObject({
      text: "Rome.",
      usage: { tokensIn: 1005, tokensOut: 7 },
      finishReason: "tool_calls",
    });
    const reasons = {
      end_turn: "stop",
      stop_sequence: "stop",
      max_tokens: "length",
      refusal: "content_filter",
      tool_use: "tool_calls",
      new_reason: "unknown",
    };
    for (const [wire, normalised] of Object.entries(reasons)) {
      expect(anthropic.parseResponse({ ...body, stop_reason: wire }).finishReason).toBe(normalised);
    }
  });

  it("rejects a 200 body that is an error or has no content", () => {
    expect(() => anthropic.parseResponse(readFixtureJson("anthropic", "error-401.json"))).toThrow(
      ProviderResponseError,
    );
    expect(() => anthropic.parseResponse({ id: "msg_1", type: "message" })).toThrow(
      /without a content array/,
    );
  });

  it.each([
    [429, "error-429.json", "rate_limit_error", "exceed the rate limit"],
    [
      400,
      "error-400-context.json",
      "invalid_request_error",
      "prompt is too long: 214837 tokens > 200000 maximum",
    ],
    [401, "error-401.json", "authentication_error", "invalid x-api-key"],
  ])("reads the HTTP %i error fixture %s", (status, file, type, message) => {
    const error = anthropic.parseError(status, readFixtureJson("anthropic", file));
    expect(error).toStrictEqual({ status, type, message: expect.stringContaining(message) });
  });

  it("reads stream events one at a time", () => {
    const parse = createStreamParser(anthropic.slug);
    const start = {
      type: "message_start",
      message: { usage: { input_tokens: 10, cache_read_input_tokens: 2, output_tokens: 1 } },
    };
    expect(parse({ event: "message_start", data: JSON.stringify(start) })).toStrictEqual([
      { type: "usage", usage: { tokensIn: 12 } },
    ]);
    expect(parse({ event: "ping", data: '{"type": "ping"}' })).toStrictEqual([]);
    const thinking = {
      type: "content_block_delta",
      index: 0,
      delta: { type: "thinking_delta", thinking: "hm" },
    };
    expect(parse({ event: "content_block_delta", data: JSON.stringify(thinking) })).toStrictEqual(
      [],
    );
    const delta = {
      type: "message_delta",
      delta: { stop_reason: "max_tokens" },
      usage: { output_tokens: 64 },
    };
    expect(parse({ event: "message_delta", data: JSON.stringify(delta) })).toStrictEqual([
      { type: "finish", reason: "length" },
      { type: "usage", usage: { tokensOut: 64 } },
    ]);
    expect(parse({ event: "future_event", data: '{"type":"future_event"}' })).toStrictEqual([]);
    expect(parse({ event: "message_stop", data: '{"type":"message_stop"}' })).toStrictEqual([
      { type: "done" },
    ]);
  });
});
