/**
 * The examples of Cloudflare's usage/chat-completion.mdx (the compat endpoint) and
 * features/dynamic-routing/usage.mdx, sent to the emulator as written. The compat page renders
 * `<CodeSnippets forceAPI="unified" />` (src/components/ai-gateway/code-example-selector.tsx): for
 * each provider of `modelOptions` an OpenAI SDK and a curl example, with a stored key (BYOK or
 * Unified Billing: only the gateway token is sent) or with the provider's key in the request
 * (not offered for `dynamic` and `workers-ai`). The AI SDK variants are in compat-ai-sdk.test.ts.
 * The dynamic-routing page's Workers example runs its handler as written against a stand-in for
 * the `AI` binding, whose `gateway(id).run(body)` posts the body to that gateway's universal
 * endpoint (endpoints/compat-steps.test.ts holds the `chat/completion` spelling on its own).
 */
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import { emulatorWith, testConfig } from "../helpers.ts";
import { asWritten, jsonOf, runCurl } from "./as-written.ts";

/** The page's `modelOptions`: the example's provider, model, and the slug that serves it. */
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

/** Keys stored in the gateway (BYOK), and the mocks accept only those and the callers' own. */
const stored: Record<string, string> = {
  openai: "sk-openai-stored",
  anthropic: "sk-ant-stored",
  "google-ai-studio": "google-stored",
  grok: "xai-stored",
};
const callerKey = (provider: string) => `caller-${provider}`;

let emulator: Emulator;
/**
 * An emulator whose mocks accept only `accepted` keys: the stored ones, or (for the examples with
 * the key in the request) only the callers' own, so an answer proves which key went upstream.
 */
async function start(accepted: "stored" | "caller") {
  ({ emulator } = await emulatorWith({
    config: testConfig([
      {
        id: "chat",
        authentication: true,
        byok: { providers: ["openai", "anthropic", "google-ai-studio", "grok"] },
        routes: {
          "customer-support": [{ provider: "anthropic", model: "claude-sonnet-4-5" }],
        },
      },
    ]),
    byokKeys: stored,
    mockKeys: Object.fromEntries(
      Object.entries(stored).map(([slug, key]) => [
        slug,
        [accepted === "stored" ? key : callerKey(slug)],
      ]),
    ),
  }));
}
beforeEach(() => start("stored"));
afterEach(() => emulator.close());

/** The reader's fills: the gateway, the gateway token, and a provider's own key. */
const fills = (provider: string) => ({
  "{gateway_id}": "chat",
  "{cf_api_token}": emulator.gatewayToken,
  "{CF_AIG_TOKEN}": emulator.gatewayToken,
  [`{${provider}_api_token}`]: callerKey(provider === "google" ? "google-ai-studio" : provider),
});

/** The page's curl example (`curlCode`), with `{headerauth}` as the component fills it. */
function curlExample(provider: string, model: string, keyInRequest: boolean): string {
  const headerauth = keyInRequest
    ? `  --header 'Authorization: Bearer {${provider}_api_token}' \\\n`
    : "";
  return `curl -X POST https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id}/compat/chat/completions \\
  --header 'cf-aig-authorization: Bearer {CF_AIG_TOKEN}' \\
${headerauth}  --header 'Content-Type: application/json' \\
  --data '{
    "model": "${provider}/${model}",
    "messages": [
      {
        "role": "user",
        "content": "What is Cloudflare?"
      }
    ]
  }'`;
}

const answerText = (completion: Record<string, unknown>) =>
  (completion as { choices: { message: { content: string } }[] }).choices[0]!.message.content;

describe("usage/chat-completion.mdx, curl", () => {
  // "Switch providers by changing the `model` and `apiKey` parameters."
  // "Specify the model using `{provider}/{model}` format."
  it.each(models)("answers $provider/$model with the stored key", async (option) => {
    const command = asWritten(
      curlExample(option.provider, option.model, false),
      emulator,
      fills(option.provider),
    );
    const completion = jsonOf(await runCurl(command));
    expect(completion.object).toBe("chat.completion");
    expect(answerText(completion)).toContain(`Mock answer from ${option.serves}`);
    expect(emulator.logs("chat")).toMatchObject([{ provider: option.serves, success: true }]);
  });

  it.each(withKeyInRequest)(
    "answers $provider/$model with the key in the request",
    async (option) => {
      await emulator.close();
      await start("caller");
      const command = asWritten(
        curlExample(option.provider, option.model, true),
        emulator,
        fills(option.provider),
      );
      const completion = jsonOf(await runCurl(command));
      expect(answerText(completion)).toContain(`Mock answer from ${option.serves}`);
      // The mocks accept only the caller's key here: the stored one was not sent.
      expect(emulator.mocks!.attempts.map((attempt) => attempt.auth)).toEqual(["valid"]);
    },
  );
});

describe("usage/chat-completion.mdx, OpenAI SDK", () => {
  it.each(models)("answers $provider/$model with the stored key", async (option) => {
    const client = new OpenAI({
      apiKey: asWritten("{cf_api_token}", emulator, fills(option.provider)),
      baseURL: asWritten(
        "https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id}/compat",
        emulator,
        fills(option.provider),
      ),
    });
    const response = await client.chat.completions.create({
      model: `${option.provider}/${option.model}`,
      messages: [{ role: "user", content: "Hello, world!" }],
    });
    expect(response.choices[0]!.message.content).toContain(`Mock answer from ${option.serves}`);
  });

  it.each(withKeyInRequest)(
    "answers $provider/$model with the key in the request",
    async (option) => {
      await emulator.close();
      await start("caller");
      const fill = (text: string) => asWritten(text, emulator, fills(option.provider));
      const client = new OpenAI({
        apiKey: fill(`{${option.provider}_api_token}`),
        defaultHeaders: {
          // if gateway is authenticated
          "cf-aig-authorization": fill("Bearer {cf_api_token}"),
        },
        baseURL: fill("https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id}/compat"),
      });
      const response = await client.chat.completions.create({
        model: `${option.provider}/${option.model}`,
        messages: [{ role: "user", content: "Hello, world!" }],
      });
      expect(response.choices[0]!.message.content).toContain(`Mock answer from ${option.serves}`);
    },
  );
});

describe("features/dynamic-routing/usage.mdx", () => {
  const route = { "<your-dynamic-route-name>": "customer-support" };

  it("answers the OpenAI SDK example with the route's model", async () => {
    // "The response from a dynamic route is the same as the response from a model."
    const cloudflareToken = emulator.gatewayToken;
    const accountId = emulator.accountId;
    const gatewayId = "chat";
    const baseURL = asWritten(
      `https://gateway.ai.cloudflare.com/v1/${accountId}/${gatewayId}/compat`,
      emulator,
    );
    const openai = new OpenAI({
      apiKey: cloudflareToken,
      baseURL,
    });
    const model = asWritten("dynamic/<your-dynamic-route-name>", emulator, route);
    const messages = [{ role: "user" as const, content: "What is a neuron?" }];
    const chatCompletion = await openai.chat.completions.create({
      model,
      messages,
    });
    const response = chatCompletion.choices[0]!.message;
    expect(response.content).toContain("Mock answer from anthropic");
  });

  it("answers the curl example, logging the provider and model that served", async () => {
    // "`cf-aig-model` - The model used", "`cf-aig-provider` - The slug of provider used"
    const command = asWritten(
      `curl -X POST https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id}/compat/chat/completions \\
  --header 'cf-aig-authorization: Bearer {CF_AIG_TOKEN}' \\
  --header 'Content-Type: application/json' \\
  --data '{
    "model": "dynamic/<your-dynamic-route-name>",
    "messages": [
      {
        "role": "user",
        "content": "What is Cloudflare?"
      }
    ]
  }'`,
      emulator,
      { ...fills("openai"), ...route },
    );
    const completion = jsonOf(await runCurl(command));
    expect(answerText(completion)).toContain("Mock answer from anthropic");
    expect(emulator.logs("chat")).toMatchObject([
      { provider: "anthropic", model: "claude-sonnet-4-5", success: true },
    ]);
  });

  it("answers the Workers example's universal step with the route's model (its handler as written)", async () => {
    // "The response from a dynamic route is the same as the response from a model. There is
    // additional metadata used to notify the model and provider used"
    const answers: Response[] = [];
    /** `env.AI`: `gateway(id).run(body)` is a universal request to the gateway, authenticated. */
    const bindings = {
      AI: {
        gateway: (gatewayId: string) => ({
          run: async (body: unknown) => {
            const answer = await fetch(emulator.gatewayUrl(gatewayId), {
              method: "POST",
              headers: {
                "cf-aig-authorization": `Bearer ${emulator.gatewayToken}`,
                "content-type": "application/json",
              },
              body: JSON.stringify(body),
            });
            answers.push(answer);
            return answer;
          },
        }),
      },
    };
    // The page's index.ts; only the gateway ("default" → "chat") and the route's name are filled.
    const worker = {
      async fetch(_request: Request, env: typeof bindings) {
        const response = await env.AI.gateway("chat").run({
          provider: "compat",
          endpoint: "chat/completion",
          headers: {},
          query: {
            model: "dynamic/customer-support",
            messages: [
              {
                role: "user",
                content: "What is Cloudflare?",
              },
            ],
          },
        });
        // @ts-expect-error the page calls Response without `new`, as written
        return Response(response);
      },
    };
    // The handler's last line is the page's own mistake: `Response` is a class, so calling it
    // without `new` throws in workerd as in Node. The gateway's answer before it is the route's.
    await expect(worker.fetch(new Request("http://worker.test/"), bindings)).rejects.toThrow(
      TypeError,
    );
    const [answer] = answers;
    expect(answer!.status).toBe(200);
    expect(answer!.headers.get("cf-aig-provider")).toBe("anthropic");
    expect(answer!.headers.get("cf-aig-model")).toBe("claude-sonnet-4-5");
    expect(answerText((await answer!.json()) as Record<string, unknown>)).toContain(
      "Mock answer from anthropic",
    );
  });
});
