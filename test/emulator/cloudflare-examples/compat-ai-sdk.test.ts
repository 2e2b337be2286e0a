/**
 * The AI SDK variants of usage/chat-completion.mdx's `<CodeSnippets forceAPI="unified" />`
 * (`aiSDKUnifiedCode` in src/components/ai-gateway/code-example-selector.tsx), for each of the
 * page's `modelOptions`: `createAiGateway` with the gateway token, `createUnified()` (stored key)
 * or `createUnified({ apiKey })` (key in the request), `generateText`. `ai-gateway-provider` has no
 * base URL option and calls `https://gateway.ai.cloudflare.com` with the global `fetch`, so msw
 * hands those requests to the emulator unchanged: the host is the only thing replaced.
 */
import { generateText } from "ai";
import { createAiGateway } from "ai-gateway-provider";
import { createUnified } from "ai-gateway-provider/providers/unified";
import { bypass, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import { emulatorWith, testConfig } from "../helpers.ts";

const models = [
  { provider: "openai", model: "gpt-5.2", serves: "openai" },
  { provider: "anthropic", model: "claude-4-5-sonnet", serves: "anthropic" },
  { provider: "google", model: "gemini-2.5-pro", serves: "google-ai-studio" },
  { provider: "grok", model: "grok-4", serves: "grok" },
  { provider: "dynamic", model: "customer-support", serves: "anthropic" },
  {
    provider: "workers-ai",
    model: "@cf/meta/llama-3.3-70b-instruct-fp8-fast",
    serves: "workers-ai",
  },
] as const;
const withKeyInRequest = models.filter(
  (option) => option.provider !== "dynamic" && option.provider !== "workers-ai",
);

const stored: Record<string, string> = {
  openai: "sk-openai-stored",
  anthropic: "sk-ant-stored",
  "google-ai-studio": "google-stored",
  grok: "xai-stored",
};
const callerKey = "caller-key";

let emulator: Emulator | undefined;
const server = setupServer(
  http.all("https://gateway.ai.cloudflare.com/*", ({ request }) => {
    const url = new URL(request.url);
    return fetch(bypass(new Request(`${emulator!.url}${url.pathname}${url.search}`, request)));
  }),
);
beforeAll(() =>
  server.listen({
    onUnhandledRequest: (request, print) => {
      if (new URL(request.url).hostname !== "127.0.0.1") print.error();
    },
  }),
);
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});
afterAll(() => server.close());

/** Mocks that accept only the stored keys, or only the caller's key. */
async function start(accepted: "stored" | "caller") {
  ({ emulator } = await emulatorWith({
    config: testConfig([
      {
        id: "chat",
        authentication: true,
        byok: { providers: ["openai", "anthropic", "google-ai-studio", "grok"] },
        routes: { "customer-support": [{ provider: "anthropic", model: "claude-sonnet-4-5" }] },
      },
    ]),
    byokKeys: stored,
    mockKeys: Object.fromEntries(
      Object.entries(stored).map(([slug, key]) => [
        slug,
        [accepted === "stored" ? key : callerKey],
      ]),
    ),
  }));
  return emulator;
}

describe("usage/chat-completion.mdx, AI SDK", () => {
  // "Switch providers by changing the `model` and `apiKey` parameters."
  it.each(models)("answers $provider/$model with the stored key", async (option) => {
    const started = await start("stored");
    const aigateway = createAiGateway({
      accountId: started.accountId,
      gateway: "chat",
      apiKey: started.gatewayToken,
    });

    const unified = createUnified();

    const { text } = await generateText({
      model: aigateway(unified(`${option.provider}/${option.model}`)),
      prompt: "What is Cloudflare?",
    });
    expect(text).toContain(`Mock answer from ${option.serves}`);
  });

  it.each(withKeyInRequest)(
    "answers $provider/$model with the key in the request",
    async (option) => {
      const started = await start("caller");
      const aigateway = createAiGateway({
        accountId: started.accountId,
        gateway: "chat",
        apiKey: started.gatewayToken,
      });

      const unified = createUnified({ apiKey: callerKey });

      const { text } = await generateText({
        model: aigateway(unified(`${option.provider}/${option.model}`)),
        prompt: "What is Cloudflare?",
      });
      expect(text).toContain(`Mock answer from ${option.serves}`);
      expect(started.mocks!.attempts.map((attempt) => attempt.auth)).toEqual(["valid"]);
    },
  );
});
