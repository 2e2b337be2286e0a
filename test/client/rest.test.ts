/**
 * The client's REST mode (`createRestClient`, `stepwise-gateway/client/rest`) and
 * `createGatewayFetch` on the REST API, against the real emulator over loopback HTTP. The spec is
 * usage/rest-api.mdx: "Pass it in the `Authorization` header", "To use a specific gateway,
 * include the `cf-aig-gateway-id` header", "Third-party models use the `author/model` format", and
 * features/dynamic-routing/usage.mdx: "`cf-aig-model` - The model used", "`cf-aig-provider` - The
 * slug of provider used" — which the client maps back to the route's step.
 */

import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../src/client/errors.ts";
import { createGatewayFetch } from "../../src/client/fetch.ts";
import { type GatewayClientOptions, memoryRecorder } from "../../src/client/index.ts";
import { createRestClient, type RestClientOptions } from "../../src/client/rest/index.ts";
import { parseConfig } from "../../src/config/index.ts";
import { useEmulatorPerFile } from "../helpers/emulator-per-file.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const config = parseConfig({
  accountId,
  gateways: [
    {
      id: "chat-test",
      authentication: true,
      byok: { providers: ["anthropic", "openai", "workers-ai", "google-ai-studio"] },
      routes: {
        default: [
          { provider: "anthropic", model: "claude-sonnet-4-5" },
          { provider: "openai", model: "gpt-4o-mini" },
          { provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct" },
        ],
        gemini: [{ provider: "google-ai-studio", model: "gemini-2.5-flash" }],
      },
    },
  ],
  keys: { providers: ["anthropic", "openai", "workers-ai", "google-ai-studio"] },
  models: { "openai/gpt-4o-mini": { input: 0.15, output: 0.6 } },
});
const routes = config.gateways[0]!.routes;
const messages = [{ role: "user", content: "What is the capital of Italy?" }] as const;

const running = useEmulatorPerFile(config, { gatewayToken: "emulator-token" });

/** A REST client on the emulator whose requests are kept (URL, headers, body). */
function restClient(overrides: Partial<RestClientOptions> = {}) {
  const recorder = memoryRecorder();
  const sent: { url: string; headers: Headers; body: Record<string, unknown> }[] = [];
  const client = createRestClient({
    accountId,
    gatewayId: "chat-test",
    baseUrl: running.emulator.url,
    apiToken: running.emulator.gatewayToken,
    gatewayToken: "never-sent-on-the-rest-api",
    routes,
    prices: config.models,
    recorder,
    fetch: (input, init) => {
      sent.push({
        url: String(input),
        headers: new Headers(init?.headers),
        body: JSON.parse(String(init?.body)) as Record<string, unknown>,
      });
      return fetch(input, init);
    },
    ...overrides,
  });
  return { client, recorder, sent };
}

describe("createRestClient", () => {
  it("sends a route as dynamic/<route> to /ai/v1/chat/completions with the API token and the gateway", async () => {
    // "Pass it in the `Authorization` header." / "include the `cf-aig-gateway-id` header"
    const { client, sent } = restClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.text).toMatch(/^Mock answer from anthropic .*\[end\]$/);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe(`${running.emulator.aiUrl}/chat/completions`);
    expect(sent[0]!.headers.get("authorization")).toBe(`Bearer ${running.emulator.gatewayToken}`);
    expect(sent[0]!.headers.get("cf-aig-gateway-id")).toBe("chat-test");
    expect(sent[0]!.headers.has("cf-aig-authorization")).toBe(false);
    expect(sent[0]!.body).toMatchObject({ model: "dynamic/default", messages });
    expect(client.url()).toBe(running.emulator.aiUrl);
    // The gateway the header names logged it.
    expect(running.emulator.logs("chat-test").at(-1)).toMatchObject({ provider: "anthropic" });
  });

  it("maps cf-aig-provider and cf-aig-model to the route's step, with the step's cost", async () => {
    // "`cf-aig-model` - The model used", "`cf-aig-provider` - The slug of provider used"
    running.emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
    const { client, recorder } = restClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served).toMatchObject({ index: 1, provider: "openai", model: "gpt-4o-mini" });
    expect(answer.cost).toBeGreaterThan(0);
    expect(recorder.events).toMatchObject([
      {
        mode: "rest",
        route: "default",
        step: 1,
        provider: "openai",
        model: "gpt-4o-mini",
        ok: true,
      },
    ]);
    expect(recorder.events[0]!.logId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  });

  it("sends a one-step route as its author/model, google-ai-studio as google/", async () => {
    // "Third-party models use the `author/model` format: ... `google/gemini-3-flash` — Google"
    const { client, sent, recorder } = restClient();
    const answer = await client.chat({ route: "gemini", messages });
    expect(sent[0]!.body.model).toBe("google/gemini-2.5-flash");
    expect(answer.served).toMatchObject({ index: 0, provider: "google-ai-studio" });
    expect(recorder.events[0]).toMatchObject({ step: 0, provider: "google-ai-studio" });
  });

  it("speaks Anthropic's Messages format on /ai/v1/messages", async () => {
    // "`POST /ai/v1/messages` | Anthropic Messages API | LLMs — Anthropic SDK compatible"
    running.emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
    const { client, sent } = restClient({ format: "messages" });
    const answer = await client.chat({ route: "default", messages, maxTokens: 300 });
    expect(sent[0]!.url).toBe(`${running.emulator.aiUrl}/messages`);
    expect(sent[0]!.body).toMatchObject({ model: "dynamic/default", max_tokens: 300 });
    expect(answer.text).toMatch(/^Mock answer from openai .*\[end\]$/);
    expect(answer.served).toMatchObject({ index: 1, provider: "openai" });
  });

  it("streams, and after a stream cut mid-answer goes on with the next step as its own model", async () => {
    running.emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "stream-cut" }] });
    const { client, sent, recorder } = restClient();
    const stream = client.stream({ route: "default", messages });
    const restarts = [];
    for await (const delta of stream) if (delta.type === "restart") restarts.push(delta);
    const result = await stream.result;
    expect(restarts).toMatchObject([{ step: 0, reason: "incomplete_stream" }]);
    expect(result.text).toMatch(/^Mock answer from openai .*\[end\]$/);
    expect(result.served).toMatchObject({ index: 1, provider: "openai" });
    expect(sent.map(({ url, body }) => [url, body.model, body.stream])).toStrictEqual([
      [`${running.emulator.aiUrl}/chat/completions`, "dynamic/default", true],
      [`${running.emulator.aiUrl}/chat/completions`, "openai/gpt-4o-mini", true],
    ]);
    expect(recorder.events[0]).toMatchObject({ mode: "rest", step: 1, streamed: true });
  });

  it("streams Anthropic's Messages events from /ai/v1/messages into text and the served step", async () => {
    running.emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
    const { client, sent } = restClient({ format: "messages" });
    let text = "";
    const stream = client.stream({ route: "default", messages });
    for await (const delta of stream) if (delta.type === "text") text += delta.text;
    const result = await stream.result;
    expect(sent[0]!.body).toMatchObject({ model: "dynamic/default", stream: true });
    expect(text).toMatch(/^Mock answer from openai .*\[end\]$/);
    expect(result.served).toMatchObject({ index: 1, provider: "openai" });
    expect(result.usage.tokensOut).toBeGreaterThan(0);
  });

  it("ends with an authentication error, never retried, when the API token is wrong", async () => {
    // "Authenticate with a Cloudflare API token that has `AI Gateway` permission."
    const { client, sent, recorder } = restClient({ apiToken: "not-the-token" });
    const error = await client.chat({ route: "default", messages }).catch((caught) => caught);
    expect(error).toMatchObject({ name: "AuthenticationError", status: 401 });
    expect(String(error.message)).not.toContain("not-the-token");
    expect(sent).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ mode: "rest", ok: false, status: 401 });
  });

  it("refuses options without an API token or with an unknown format, naming the field", () => {
    const base = { accountId, gatewayId: "chat-test", routes };
    expect(() => createRestClient({ ...base, apiToken: " " })).toThrow(InvalidOptionsError);
    expect(() => createRestClient({ ...base, apiToken: " " })).toThrow(/apiToken is missing/);
    expect(() =>
      createRestClient({ ...base, apiToken: "t", format: "responses" as "messages" }),
    ).toThrow(/format must be one of "chat-completions", "messages"; got "responses"/);
  });

  it("goes to api.cloudflare.com unless told otherwise", () => {
    const base = { accountId, gatewayId: "g", apiToken: "t", routes };
    expect(createRestClient(base).url()).toBe(
      `https://api.cloudflare.com/client/v4/accounts/${accountId}/ai/v1`,
    );
    expect(
      createRestClient({ ...base, baseUrl: "https://gateway.ai.cloudflare.com" }).url("models"),
    ).toBe(`https://api.cloudflare.com/client/v4/accounts/${accountId}/ai/v1/models`);
    expect(createRestClient({ ...base, apiBaseUrl: "https://api.test/" }).url()).toBe(
      `https://api.test/client/v4/accounts/${accountId}/ai/v1`,
    );
  });
});

describe("createGatewayFetch for SDKs whose baseURL is /ai/v1", () => {
  function fetchOptions(): GatewayClientOptions & { recorder: ReturnType<typeof memoryRecorder> } {
    return {
      accountId,
      gatewayId: "chat-test",
      baseUrl: running.emulator.url,
      gatewayToken: "gateway-token-not-for-rest",
      routes,
      recorder: memoryRecorder(),
    };
  }

  it("records the OpenAI SDK's dynamic route call with the step that served, in the client's gateway", async () => {
    running.emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
    const options = fetchOptions();
    const seen: Headers[] = [];
    const gatewayFetch = createGatewayFetch({
      ...options,
      fetch: (input, init) => {
        seen.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    const openai = new OpenAI({
      apiKey: running.emulator.gatewayToken,
      baseURL: running.emulator.aiUrl,
      fetch: gatewayFetch,
    });
    const completion = await openai.chat.completions.create({
      model: "dynamic/default",
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(completion.choices[0]!.message.content).toMatch(/Mock answer from openai/);
    // The SDK's API token authenticates; the gateway token is not added beside it.
    expect(seen[0]!.get("cf-aig-gateway-id")).toBe("chat-test");
    expect(seen[0]!.has("cf-aig-authorization")).toBe(false);
    await expect.poll(() => options.recorder.events.length).toBe(1);
    expect(options.recorder.events[0]).toMatchObject({
      mode: "fetch",
      gateway: "chat-test",
      route: "default",
      step: 1,
      provider: "openai",
      model: "gpt-4o-mini",
      ok: true,
    });
    expect(options.recorder.events[0]!.tokensIn).toBeGreaterThan(0);
  });

  it("records a Messages call of one model on the gateway the request names", async () => {
    const options = fetchOptions();
    const gatewayFetch = createGatewayFetch(options);
    const response = await gatewayFetch(`${running.emulator.aiUrl}/messages`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${running.emulator.gatewayToken}`,
        "cf-aig-gateway-id": "default",
        "content-type": "application/json",
      },
      body: JSON.stringify({
        model: "anthropic/claude-sonnet-4-5",
        max_tokens: 256,
        messages: [{ role: "user", content: "Hello" }],
      }),
    });
    expect(await response.json()).toMatchObject({ type: "message", role: "assistant" });
    await expect.poll(() => options.recorder.events.length).toBe(1);
    expect(options.recorder.events[0]).toMatchObject({
      gateway: "default",
      route: "rest",
      step: 0,
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      ok: true,
    });
    expect(options.recorder.events[0]!.tokensOut).toBeGreaterThan(0);
  });
});
