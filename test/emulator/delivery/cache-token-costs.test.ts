/**
 * Custom costs with cache-read and cache-write rates (changelog 2026-09-09,
 * configuration/custom-costs.mdx): cache tokens counted within the input are subtracted before
 * `per_token_in` applies, and each rate applies to its own count.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import { emulatorWith, postJson, startStub } from "../helpers.ts";

let emulator: Emulator | undefined;
let stub: Awaited<ReturnType<typeof startStub>> | undefined;
afterEach(async () => {
  await emulator?.close();
  await stub?.close();
  emulator = undefined;
  stub = undefined;
});

// The page's example rates: $1, $2, $0.10 and $0.50 per million tokens.
const rates = {
  per_token_in: 0.000001,
  per_token_out: 0.000002,
  per_cache_read_token: 0.0000001,
  per_cache_write_token: 0.0000005,
};

/** An Anthropic answer reporting the page's example usage. */
function anthropicAnswer() {
  return {
    id: "msg_stub",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [{ type: "text", text: "cached" }],
    stop_reason: "end_turn",
    // Anthropic reports cache tokens beside input_tokens: 200 + 600 + 200 = 1,000 input tokens.
    usage: {
      input_tokens: 200,
      cache_read_input_tokens: 600,
      cache_creation_input_tokens: 200,
      output_tokens: 100,
    },
  };
}

async function anthropicEmulator() {
  stub = await startStub((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(anthropicAnswer()));
  });
  ({ emulator } = await emulatorWith({ upstreams: { anthropic: stub.url } }));
  return emulator;
}

const anthropicBody = {
  model: "claude-sonnet-4-5",
  max_tokens: 100,
  messages: [{ role: "user", content: "When is Cloudflare's Birthday Week?" }],
};

describe("custom costs with cache-token rates", () => {
  it("prices 200 fresh input tokens of 1,000 when 600 were read from and 200 written to the cache", async () => {
    // "AI Gateway calculates 200 fresh input tokens: 1,000 - 600 - 200. It then applies each
    // custom rate to its corresponding token count."
    const gateway = await anthropicEmulator();
    const response = await postJson(
      `${gateway.gatewayUrl("open")}/anthropic/v1/messages`,
      anthropicBody,
      {
        "cf-aig-custom-cost": JSON.stringify(rates),
        "x-api-key": "sk-test",
      },
    );
    expect(response.status).toBe(200);
    const [log] = gateway.logs("open");
    expect(log!.tokens_in).toBe(1_000);
    expect(log!.cost).toBeCloseTo(200 * 1e-6 + 600 * 1e-7 + 200 * 5e-7 + 100 * 2e-6, 12);
    expect(log!.custom_cost).toBe(true);
  });

  it("defaults an omitted cache rate to per_token_in, and ignores cache tokens without any", async () => {
    // "If you specify only one cache rate, the other defaults to per_token_in. If you omit both
    // cache rates, AI Gateway ignores cache-token counts and uses the existing input and output
    // calculation."
    const gateway = await anthropicEmulator();
    const url = `${gateway.gatewayUrl("open")}/anthropic/v1/messages`;
    const { per_cache_write_token: _write, ...readOnly } = rates;
    await postJson(url, anthropicBody, {
      "cf-aig-custom-cost": JSON.stringify(readOnly),
      "x-api-key": "sk-test",
    });
    await postJson(url, anthropicBody, {
      "cf-aig-custom-cost": JSON.stringify({ per_token_in: 0.000001, per_token_out: 0.000002 }),
      "x-api-key": "sk-test",
    });
    const [oneRate, noRate] = gateway.logs("open");
    expect(oneRate!.cost).toBeCloseTo(200 * 1e-6 + 600 * 1e-7 + 200 * 1e-6 + 100 * 2e-6, 12);
    expect(noRate!.cost).toBeCloseTo(1_000 * 1e-6 + 100 * 2e-6, 12);
  });

  it("reads OpenAI's cached prompt tokens from a stream's usage chunk", async () => {
    stub = await startStub((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (body: unknown) => `data: ${JSON.stringify(body)}\n\n`;
      response.write(
        chunk({
          id: "c",
          object: "chat.completion.chunk",
          choices: [{ index: 0, delta: { content: "hi" }, finish_reason: null }],
        }),
      );
      response.write(
        chunk({
          id: "c",
          object: "chat.completion.chunk",
          choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
        }),
      );
      response.write(
        chunk({
          id: "c",
          object: "chat.completion.chunk",
          choices: [],
          usage: {
            prompt_tokens: 1_000,
            completion_tokens: 100,
            prompt_tokens_details: { cached_tokens: 600 },
          },
        }),
      );
      response.end("data: [DONE]\n\n");
    });
    ({ emulator } = await emulatorWith({ upstreams: { openai: stub.url } }));
    const response = await postJson(
      `${emulator.gatewayUrl("open")}/openai/chat/completions`,
      { model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi" }] },
      { "cf-aig-custom-cost": JSON.stringify(rates), authorization: "Bearer sk-test" },
    );
    await response.text();
    const [log] = emulator.logs("open");
    expect(log!.cost).toBeCloseTo(400 * 1e-6 + 600 * 1e-7 + 100 * 2e-6, 12);
  });

  it("refuses a cache rate that is not a non-negative number", async () => {
    const gateway = await anthropicEmulator();
    const response = await postJson(
      `${gateway.gatewayUrl("open")}/anthropic/v1/messages`,
      anthropicBody,
      {
        "cf-aig-custom-cost": JSON.stringify({ ...rates, per_cache_read_token: "cheap" }),
      },
    );
    expect(response.status).toBe(400);
    expect(stub!.requests).toHaveLength(0);
  });
});
