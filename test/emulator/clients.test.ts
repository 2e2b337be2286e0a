/**
 * Clients nobody here wrote, against the emulator, on the paths their users take:
 * - Cloudflare's `ai-gateway-provider` with the AI SDK in REST mode: a fallback array of models
 *   (universal endpoint; the answer is parsed by the model at `cf-aig-step`), and `unified()` for
 *   provider/model and `dynamic/<route>` (compat universal steps). It calls
 *   `https://gateway.ai.cloudflare.com` with the global `fetch` and has no base URL option, so msw
 *   hands those requests to the emulator unchanged.
 * - The `openai` SDK on the compat endpoint (`apiKey` = the gateway token, as Cloudflare's examples
 *   do), plain and streamed, and on the provider-native OpenAI endpoint.
 * Keys are stored in the gateway (BYOK) and the mock providers accept only those: an answer proves
 * the stored key was injected.
 */

import { generateText, streamText } from "ai";
import { createAiGateway } from "ai-gateway-provider";
import { createAnthropic } from "ai-gateway-provider/providers/anthropic";
import { createOpenAI } from "ai-gateway-provider/providers/openai";
import { unified } from "ai-gateway-provider/providers/unified";
import { bypass, http } from "msw";
import { setupServer } from "msw/node";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { emulatorWith, testConfig } from "./helpers.ts";

const storedKeys = { openai: "sk-openai-stored", anthropic: "sk-ant-stored" };
const config = testConfig([
  {
    id: "chat",
    authentication: true,
    byok: { providers: ["anthropic", "openai"] },
    routes: {
      default: [
        { provider: "anthropic", model: "claude-sonnet-4-5", timeoutMs: 5000 },
        { provider: "openai", model: "gpt-4o-mini", timeoutMs: 5000 },
      ],
    },
  },
]);

let emulator: Emulator;
/** Requests ai-gateway-provider sent to Cloudflare's host, as they left the client. */
const toCloudflare: { url: string; body: unknown }[] = [];

const server = setupServer(
  http.all("https://gateway.ai.cloudflare.com/*", async ({ request }) => {
    const url = new URL(request.url);
    const body = await request.clone().text();
    toCloudflare.push({ url: url.pathname, body: body === "" ? undefined : JSON.parse(body) });
    const target = `${emulator.url}${url.pathname}${url.search}`;
    return fetch(bypass(new Request(target, request)));
  }),
);

beforeAll(() =>
  server.listen({
    // The emulator and its mock providers run on loopback: those calls pass; nothing else may.
    onUnhandledRequest: (request, print) => {
      if (new URL(request.url).hostname !== "127.0.0.1") print.error();
    },
  }),
);
beforeEach(async () => {
  ({ emulator } = await emulatorWith({
    config,
    byokKeys: storedKeys,
    mockKeys: { openai: [storedKeys.openai], anthropic: [storedKeys.anthropic] },
  }));
  toCloudflare.length = 0;
});
afterEach(async () => {
  server.resetHandlers();
  await emulator.close();
});
afterAll(() => server.close());

function gateway() {
  return createAiGateway({
    accountId: emulator.accountId,
    gateway: "chat",
    apiKey: emulator.gatewayToken,
  });
}

describe("ai-gateway-provider (REST mode) with the AI SDK", () => {
  it("falls back through an array of models and parses the answer with the serving model", async () => {
    emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
    const { text, response } = await generateText({
      model: gateway()([
        createAnthropic()("claude-sonnet-4-5"),
        createOpenAI().chat("gpt-4o-mini"),
      ]),
      prompt: "Say hello",
    });
    expect(text).toContain("Mock answer from openai");
    expect(response.headers?.["cf-aig-step"]).toBe("1");
    const [sent] = toCloudflare;
    expect(sent!.url).toBe(`/v1/${emulator.accountId}/chat`);
    expect((sent!.body as { provider: string }[]).map((step) => step.provider)).toEqual([
      "anthropic",
      "openai",
    ]);
  });

  it("runs a dynamic route with unified('dynamic/<route>')", async () => {
    const { text, response } = await generateText({
      model: gateway()(unified("dynamic/default")),
      prompt: "Say hello",
    });
    expect(text).toContain("Mock answer from anthropic");
    expect(response.headers?.["cf-aig-provider"]).toBe("anthropic");
    const [sent] = toCloudflare;
    expect(sent!.body).toMatchObject([
      { provider: "compat", endpoint: "chat/completions", query: { model: "dynamic/default" } },
    ]);
  });

  it("answers unified('provider/model') and streams it", async () => {
    const plain = await generateText({
      model: gateway()(unified("anthropic/claude-sonnet-4-5")),
      prompt: "Say hello",
    });
    expect(plain.text).toContain("Mock answer from anthropic");
    const streamed = streamText({
      model: gateway()(unified("openai/gpt-4o-mini")),
      prompt: "Say hello",
    });
    let text = "";
    for await (const chunk of streamed.textStream) text += chunk;
    expect(text).toContain("Mock answer from openai");
    expect(text).toContain("[end]");
  });

  it("tells the caller when the gateway token is wrong", async () => {
    const wrong = createAiGateway({
      accountId: emulator.accountId,
      gateway: "chat",
      apiKey: "nope",
    });
    await expect(
      generateText({ model: wrong(unified("openai/gpt-4o-mini")), prompt: "Say hello" }),
    ).rejects.toThrow(/authentication active/);
  });
});

describe("the openai SDK", () => {
  function compat() {
    return new OpenAI({
      apiKey: emulator.gatewayToken,
      baseURL: emulator.compatUrl("chat"),
      maxRetries: 0,
    });
  }

  it("calls a dynamic route on the compat endpoint with the gateway token as apiKey", async () => {
    emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "overloaded" }] });
    const { data, response } = await compat()
      .chat.completions.create({
        model: "dynamic/default",
        messages: [{ role: "user", content: "Say hello" }],
      })
      .withResponse();
    expect(data.choices[0]?.message.content).toContain("Mock answer from openai");
    expect(response.headers.get("cf-aig-step")).toBe("1");
    expect(response.headers.get("cf-aig-model")).toBe("gpt-4o-mini");
  });

  it("streams provider/model in OpenAI's chunks, from a non-OpenAI provider too", async () => {
    const stream = await compat().chat.completions.create({
      model: "anthropic/claude-sonnet-4-5",
      messages: [{ role: "user", content: "Say hello" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text).toContain("Mock answer from anthropic");
    expect(usage).toMatchObject({ completion_tokens: expect.any(Number) });
  });

  it("uses the provider-native endpoint with the stored key that cf-aig-byok-alias selects", async () => {
    const openai = new OpenAI({
      apiKey: "unused",
      baseURL: `${emulator.gatewayUrl("chat")}/openai`,
      defaultHeaders: {
        "cf-aig-authorization": `Bearer ${emulator.gatewayToken}`,
        // Selects the stored key explicitly, so the SDK's own key is not sent upstream.
        "cf-aig-byok-alias": "default",
      },
      maxRetries: 0,
    });
    const completion = await openai.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Say hello" }],
    });
    expect(completion.choices[0]?.message.content).toContain("Mock answer from openai");
  });

  it("raises the SDK's own errors for gateway refusals", async () => {
    const wrong = new OpenAI({
      apiKey: "nope",
      baseURL: emulator.compatUrl("chat"),
      maxRetries: 0,
    });
    await expect(
      wrong.chat.completions.create({
        model: "openai/gpt-4o-mini",
        messages: [{ role: "user", content: "Say hello" }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(
      compat().chat.completions.create({
        model: "dynamic/missing",
        messages: [{ role: "user", content: "Say hello" }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });
});
