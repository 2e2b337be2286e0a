/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * Bad bodies get a 4xx with `{ error }`, never a 500: a body cut short, a body over the limit,
 * JSON nested past the depth limit. Bodies the Worker does not have to change go upstream byte
 * for byte, and the universal body keeps each step's payload as the app wrote it.
 */
import { describe, expect, it } from "vitest";
import { accountId, adminToken, createHarness } from "./harness.ts";

const encoder = new TextEncoder();

/** A body stream that sends `text` and then fails, as when the client goes away mid-upload. */
function truncated(text: string): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(encoder.encode(text));
      } else controller.error(new TypeError("Network connection lost."));
    },
  });
}

async function setUp() {
  const harness = createHarness();
  await harness.rotate("openai", "sk-openai-bodies-000001");
  const app = await harness.createApp();
  await harness.advance(2_000);
  return { harness, app };
}

const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("request bodies", () => {
  const routes: [string, string][] = [
    ["universal", `/v1/${accountId}/chat`],
    ["compat", `/v1/${accountId}/chat/compat/chat/completions`],
    ["admin rotate", "/keys/openai"],
  ];

  it.each(routes)("%s: a body cut short is a 400, not a 500", async (name, path) => {
    const { harness, app } = await setUp();
    const response = await harness.request(
      new Request(`https://worker.test${path}`, {
        method: path.startsWith("/keys") ? "PUT" : "POST",
        headers: {
          authorization: `Bearer ${name.startsWith("admin") ? adminToken : app.token}`,
          "content-type": "application/json",
        },
        body: truncated('[{"provider":"openai","endpoint":"chat/comp'),
      }),
    );
    expect(response.status, response.text).toBe(400);
    expect(response.json().error.code).toBe("body_incomplete");
    expect(harness.gatewayCalls).toHaveLength(0);
  });

  it.each(routes)("%s: a streamed body over the limit is a 413", async (name, path) => {
    const { harness, app } = await setUp();
    const chunk = encoder.encode(`{"padding":"${"x".repeat(1024 * 1024)}`);
    let sent = 0;
    const response = await harness.request(
      new Request(`https://worker.test${path}`, {
        method: path.startsWith("/keys") ? "PUT" : "POST",
        headers: {
          authorization: `Bearer ${name.startsWith("admin") ? adminToken : app.token}`,
          "content-type": "application/json",
        },
        body: new ReadableStream({
          pull(controller) {
            sent += 1;
            if (sent > 12) controller.close();
            else controller.enqueue(chunk);
          },
        }),
      }),
    );
    expect(response.status, response.text).toBe(413);
    expect(response.json().error.code).toBe("body_too_large");
  });

  it.each([
    [
      "universal",
      `/v1/${accountId}/chat`,
      `[{"provider":"openai","endpoint":"x","query":${deep(100_000)}}]`,
    ],
    [
      "compat",
      `/v1/${accountId}/chat/compat/chat/completions`,
      `{"model":"openai/gpt-4o-mini","messages":${deep(100_000)}}`,
    ],
    [
      "universal, just past the limit",
      `/v1/${accountId}/chat`,
      `[{"provider":"openai","endpoint":"x","query":${deep(65)}}]`,
    ],
  ])("%s: JSON nested past the depth limit is a 400", async (_name, path, body) => {
    const { harness, app } = await setUp();
    const response = await harness.call("POST", path, { token: app.token, body });
    expect(response.status, response.text).toBe(400);
    expect(response.json().error.code).toBe("json_too_deep");
    expect(harness.gatewayCalls).toHaveLength(0);
  });

  // Cloudflare's docs do not say what a duplicate member means; JSON.parse keeps the last, another
  // reader the first, so the Worker would pick a key by one reading and forward both (issue #23).
  it.each([
    [
      'two "provider" members in a step',
      '[{"provider":"groq","endpoint":"chat/completions","provider":"openai","query":{}}]',
      'step 0 has two "provider" members',
    ],
    [
      "a duplicate spelled with an escape, in a later step",
      '[{"provider":"openai","endpoint":"x"},{"provider":"openai","endpoint":"x","endpoin\\u0074":"y"}]',
      'step 1 has two "endpoint" members',
    ],
    [
      "a header written twice",
      '[{"provider":"openai","endpoint":"x","headers":{"X-Trace":"a","x-trace":"b"}}]',
      "step 0 has a headers member written twice",
    ],
  ])("universal: %s is a 400 and nothing is forwarded", async (_name, body, message) => {
    const { harness, app } = await setUp();
    const response = await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body,
    });
    expect(response.status, response.text).toBe(400);
    expect(response.json().error).toEqual({
      code: "duplicate_member",
      message: `The universal body's ${message}; send each member once.`,
    });
    expect(harness.gatewayCalls).toHaveLength(0);
  });

  it("JSON nested up to the limit goes through", async () => {
    const { harness, app } = await setUp();
    const body = `[{"provider":"openai","endpoint":"x","query":{"a":${deep(60)}}}]`;
    const response = await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body,
    });
    expect(response.status).toBe(401); // the fake provider rejects the key; the Worker forwarded it
    expect(harness.gatewayCalls).toHaveLength(1);
  });

  it("compat bodies go upstream byte for byte", async () => {
    const { harness, app } = await setUp();
    const body =
      '{ "model" : "openai/gpt-4o-mini", "temperature": 1.0, "seed": 12345678901234567890,\n "messages": [] }';
    await harness.call("POST", `/v1/${accountId}/chat/compat/chat/completions`, {
      token: app.token,
      body,
    });
    expect(harness.gatewayCalls.at(-1)?.body).toBe(body);
  });

  it("universal steps keep their payload as written; only the auth headers change", async () => {
    const { harness, app } = await setUp();
    const query = '{"model":"gpt-4o-mini","temperature":1.0,"seed":12345678901234567890}';
    const body = `[{"provider":"openai","endpoint":"chat/completions","headers":{"x-trace":"t1"},"query":${query},"config":{"requestTimeout":5000}}]`;
    await harness.call("POST", `/v1/${accountId}/chat`, { token: app.token, body });
    const sent = harness.gatewayCalls.at(-1)!.body;
    expect(sent).toContain(`"query":${query}`);
    expect(sent).toContain('"config":{"requestTimeout":5000}');
    expect(JSON.parse(sent)[0].headers).toEqual({
      "x-trace": "t1",
      authorization: "Bearer sk-openai-bodies-000001",
    });
  });
});
