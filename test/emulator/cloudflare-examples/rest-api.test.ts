/**
 * Every example on Cloudflare's usage/rest-api.mdx, sent to the emulator as the page writes it
 * (curl through the real binary, the OpenAI SDK as shown); only the host, account and gateway
 * change. The Anthropic SDK example is not run: `@anthropic-ai/sdk` is not a dependency here, and
 * the same request is the page's curl example for `/ai/v1/messages`, which is.
 */
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import { emulatorWith, testConfig } from "../helpers.ts";
import { asWritten, jsonOf, runCurl, streamEventsOf } from "./as-written.ts";

let emulator: Emulator;
beforeEach(async () => {
  ({ emulator } = await emulatorWith({
    config: testConfig([
      { id: "reports", routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } },
    ]),
  }));
});
afterEach(() => emulator.close());

/** The page's shell variables, as a reader exports them. */
const shell = () => ({
  CLOUDFLARE_ACCOUNT_ID: emulator.accountId,
  CLOUDFLARE_API_TOKEN: emulator.gatewayToken,
});

const run = async (example: string, fills: Record<string, string> = {}) => {
  const result = await runCurl(asWritten(example, emulator, fills), shell());
  expect(result.code, result.stderr).toBe(0);
  return result;
};

describe("usage/rest-api.mdx, /ai/run", () => {
  it("answers the openai/gpt-4.1 example in the envelope through the default gateway", async () => {
    // "Accepts any model with its per-model schema. Model-specific parameters go inside `input`."
    // "By default, third-party model requests route through your account's default AI Gateway."
    const answer = jsonOf(
      await run(`curl -X POST "https://api.cloudflare.com/client/v4/accounts/$CLOUDFLARE_ACCOUNT_ID/ai/run" \\
  --header "Authorization: Bearer $CLOUDFLARE_API_TOKEN" \\
  --header "Content-Type: application/json" \\
  --data '{
    "model": "openai/gpt-4.1",
    "input": {
      "messages": [
        {
          "role": "user",
          "content": "What is Cloudflare?"
        }
      ],
      "max_tokens": 512
    }
  }'`),
    );
    expect(answer).toMatchObject({ success: true, result: { object: "chat.completion" } });
    expect(emulator.logs("default")).toMatchObject([
      { provider: "openai", model: "gpt-4.1", request_type: "ai-run", success: true },
    ]);
  });

  it("answers the Workers AI example on the gateway cf-aig-gateway-id names", async () => {
    // "To call a Workers AI model, use the `@cf/` prefix in the model name and include the
    // `cf-aig-gateway-id` header to specify which gateway to route through."
    const answer = jsonOf(
      await run(`curl -X POST "https://api.cloudflare.com/client/v4/accounts/$CLOUDFLARE_ACCOUNT_ID/ai/run" \\
  --header "Authorization: Bearer $CLOUDFLARE_API_TOKEN" \\
  --header "cf-aig-gateway-id: default" \\
  --header "Content-Type: application/json" \\
  --data '{
    "model": "@cf/moonshotai/kimi-k2.6",
    "input": {
      "messages": [
        {
          "role": "user",
          "content": "What is Cloudflare?"
        }
      ]
    }
  }'`),
    );
    expect(answer).toMatchObject({ success: true, result: { response: expect.any(String) } });
    expect(emulator.logs("default")).toMatchObject([
      { provider: "workers-ai", model: "@cf/moonshotai/kimi-k2.6", success: true },
    ]);
  });

  it("answers the Workers AI endpoint with the model in the path", async () => {
    // "The existing Workers AI endpoint with the model ID in the URL path also continues to work"
    const answer = jsonOf(
      await run(`curl -X POST "https://api.cloudflare.com/client/v4/accounts/$CLOUDFLARE_ACCOUNT_ID/ai/run/@cf/moonshotai/kimi-k2.6" \\
  --header "Authorization: Bearer $CLOUDFLARE_API_TOKEN" \\
  --header "Content-Type: application/json" \\
  --data '{
    "messages": [
      {
        "role": "user",
        "content": "What is Cloudflare?"
      }
    ]
  }'`),
    );
    expect(answer).toMatchObject({ success: true, result: { response: expect.any(String) } });
    expect(emulator.logs("default")).toMatchObject([{ provider: "workers-ai", success: true }]);
  });
});

describe("usage/rest-api.mdx, /ai/v1", () => {
  it("streams the chat completions example in OpenAI's chunks", async () => {
    // "Uses the standard OpenAI chat completions format."
    const events = streamEventsOf(
      await run(`curl -X POST "https://api.cloudflare.com/client/v4/accounts/$CLOUDFLARE_ACCOUNT_ID/ai/v1/chat/completions" \\
  --header "Authorization: Bearer $CLOUDFLARE_API_TOKEN" \\
  --header "Content-Type: application/json" \\
  --data '{
    "model": "openai/gpt-4.1",
    "messages": [
      {
        "role": "system",
        "content": "You are a helpful assistant."
      },
      {
        "role": "user",
        "content": "What is Cloudflare?"
      }
    ],
    "max_tokens": 512,
    "temperature": 0.7,
    "stream": true
  }'`),
    ) as { object: string; choices: { delta: { content?: string } }[] }[];
    expect(events.length).toBeGreaterThan(1);
    expect(events.every((event) => event.object === "chat.completion.chunk")).toBe(true);
    const text = events.map((event) => event.choices[0]?.delta.content ?? "").join("");
    expect(text).toContain("Mock answer from openai");
  });

  it("answers the OpenAI SDK examples: chat completions and responses", async () => {
    // "Point the OpenAI SDK `baseURL` at the Cloudflare API"
    const CLOUDFLARE_API_TOKEN = emulator.gatewayToken;
    const ACCOUNT_ID = emulator.accountId;
    const openai = new OpenAI({
      apiKey: CLOUDFLARE_API_TOKEN,
      baseURL: asWritten(
        `https://api.cloudflare.com/client/v4/accounts/${ACCOUNT_ID}/ai/v1`,
        emulator,
      ),
    });
    const response = await openai.chat.completions.create({
      model: "openai/gpt-4.1",
      messages: [{ role: "user", content: "What is Cloudflare?" }],
    });
    expect(response.choices[0]!.message.content).toContain("Mock answer from openai");
    // "Uses the OpenAI Responses API format for agentic workflows. Compatible with the OpenAI SDK."
    const responses = await openai.responses.create({
      model: "openai/gpt-4.1",
      input: "What is Cloudflare?",
    });
    expect(responses.output_text).toContain("Mock answer from openai");
    expect(emulator.logs("default").map((log) => log.request_type)).toEqual([
      "ai-chat-completions",
      "ai-responses",
    ]);
  });

  it("answers the messages example in Anthropic's shape", async () => {
    // "Uses the Anthropic Messages API format."
    const message = jsonOf(
      await run(`curl -X POST "https://api.cloudflare.com/client/v4/accounts/$CLOUDFLARE_ACCOUNT_ID/ai/v1/messages" \\
  --header "Authorization: Bearer $CLOUDFLARE_API_TOKEN" \\
  --header "Content-Type: application/json" \\
  --data '{
    "model": "anthropic/claude-sonnet-4-5",
    "max_tokens": 512,
    "messages": [
      {
        "role": "user",
        "content": "What is Cloudflare?"
      }
    ]
  }'`),
    );
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: expect.stringContaining("Mock answer from anthropic") }],
    });
  });
});

describe("usage/rest-api.mdx, Specify a gateway", () => {
  const example = `curl -X POST "https://api.cloudflare.com/client/v4/accounts/$CLOUDFLARE_ACCOUNT_ID/ai/v1/chat/completions" \\
  --header "Authorization: Bearer $CLOUDFLARE_API_TOKEN" \\
  --header "cf-aig-gateway-id: default" \\
  --header "Content-Type: application/json" \\
  --data '{
    "model": "anthropic/claude-sonnet-4",
    "messages": [
      {
        "role": "user",
        "content": "Hello"
      }
    ]
  }'`;

  it("routes the curl example and the SDK's defaultHeaders through the named gateway", async () => {
    // "To use a specific gateway, include the `cf-aig-gateway-id` header."
    const answer = jsonOf(
      await run(example, { "cf-aig-gateway-id: default": "cf-aig-gateway-id: reports" }),
    );
    expect(answer).toMatchObject({ object: "chat.completion" });
    const CLOUDFLARE_API_TOKEN = emulator.gatewayToken;
    const ACCOUNT_ID = emulator.accountId;
    const openai = new OpenAI({
      apiKey: CLOUDFLARE_API_TOKEN,
      baseURL: asWritten(
        `https://api.cloudflare.com/client/v4/accounts/${ACCOUNT_ID}/ai/v1`,
        emulator,
      ),
      defaultHeaders: {
        "cf-aig-gateway-id": "reports",
      },
    });
    await openai.chat.completions.create({
      model: "anthropic/claude-sonnet-4",
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(emulator.logs("reports").map((log) => log.provider)).toEqual(["anthropic", "anthropic"]);
    expect(emulator.logs("default")).toEqual([]);
  });

  it("applies the named gateway's features to the request", async () => {
    // "All AI Gateway features configured on that gateway — caching, rate limiting, guardrails,
    // and logging — apply to the request."
    const state = emulator.state.gateways.get("reports")!;
    state.settings = { ...state.settings, collect_logs: false };
    jsonOf(await run(example, { "cf-aig-gateway-id: default": "cf-aig-gateway-id: reports" }));
    expect(emulator.logs("reports")).toEqual([]);
  });
});
