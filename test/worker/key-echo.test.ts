/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * An upstream that repeats the key it was sent (a 401 "Incorrect API key provided: <key>", a
 * debugging header, a stream that echoes it split across chunks) must never get it to the app,
 * on any proxy path. Nor may the app's own token come back.
 */
import { describe, expect, it } from "vitest";
import { accountId, createHarness, credentialOf, type GatewayCall } from "./harness.ts";

const keys = {
  openai: "test-ECHO-openai-4f9a2c71d0",
  anthropic: "test-ECHO-anthropic-88c1e2",
};

/** The credential the Worker injected into a gateway call, whatever the path. */
function injected(call: GatewayCall): string[] {
  const found = new Set<string>();
  const path = new URL(call.url).pathname.split("/").filter(Boolean);
  if (path.length === 3) {
    for (const step of JSON.parse(call.body) as {
      provider: string;
      headers: Record<string, string>;
    }[]) {
      const key = credentialOf(step.provider, step.headers);
      if (key) found.add(key);
    }
  }
  for (const value of Object.values(call.headers)) {
    for (const key of Object.values(keys)) if (value.includes(key)) found.add(key);
  }
  return [...found];
}

type Echo = "body" | "header" | "stream";

function echoingGateway(kind: Echo) {
  return (call: GatewayCall): Response => {
    const secrets = [...injected(call), call.headers["x-echo-token"] ?? ""].filter(Boolean);
    const echoed = secrets.join(" and ");
    if (kind === "header") {
      return new Response('{"ok":true}', {
        status: 200,
        headers: {
          "content-type": "application/json",
          "x-debug-auth": `Bearer ${echoed}`,
          "cf-aig-step": "0",
        },
      });
    }
    if (kind === "body") {
      // As a real gateway answers: with its length, so the Worker scrubs it whole.
      const text = JSON.stringify({
        error: { message: `Incorrect API key provided: ${echoed}.`, type: "invalid_request" },
      });
      return new Response(text, {
        status: 401,
        headers: {
          "content-type": "application/json",
          "content-length": String(new TextEncoder().encode(text).byteLength),
          "cf-aig-step": "0",
        },
      });
    }
    // A stream that splits each secret across two chunks, then repeats it whole.
    const encoder = new TextEncoder();
    const pieces: string[] = ['data: {"delta":"'];
    for (const secret of secrets) {
      const middle = Math.floor(secret.length / 2);
      pieces.push(secret.slice(0, middle), secret.slice(middle), " / ", secret, " ");
    }
    pieces.push('"}\n\n', "data: [DONE]\n\n");
    return new Response(
      new ReadableStream({
        pull(controller) {
          const next = pieces.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(encoder.encode(next));
        },
      }),
      { status: 200, headers: { "content-type": "text/event-stream", "cf-aig-step": "0" } },
    );
  };
}

const universalStep = (provider: "openai" | "anthropic") => ({
  provider,
  endpoint: provider === "anthropic" ? "v1/messages" : "chat/completions",
  headers: { "content-type": "application/json" },
  query: { model: provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o-mini", messages: [] },
});

const paths: [string, string, unknown][] = [
  ["universal", `/v1/${accountId}/chat`, [universalStep("openai")]],
  [
    "two-step chain",
    `/v1/${accountId}/chat`,
    [universalStep("anthropic"), universalStep("openai")],
  ],
  ["compat", `/v1/${accountId}/chat/compat/chat/completions`, { model: "openai/gpt-4o-mini" }],
  ["native OpenAI", `/v1/${accountId}/chat/openai/chat/completions`, { model: "gpt-4o-mini" }],
  ["native Anthropic", `/v1/${accountId}/chat/anthropic/v1/messages`, { model: "claude" }],
];

describe("nothing secret leaves the proxy", () => {
  for (const kind of ["body", "header", "stream"] as const) {
    it.each(paths)(`an upstream echoing the key in its ${kind}: %s`, async (_name, path, body) => {
      const harness = createHarness({ gateway: echoingGateway(kind) });
      await harness.rotate("openai", keys.openai);
      await harness.rotate("anthropic", keys.anthropic);
      const app = await harness.createApp();
      await harness.advance(2_000);
      const response = await harness.call("POST", path, {
        token: app.token,
        body,
        // A header the fake upstream echoes back: the app token, had the Worker forwarded it.
        headers: { "x-echo-token": app.token },
      });
      // The upstream really did get (and echo) a key: the test would see a leak.
      expect(injected(harness.gatewayCalls.at(-1)!).length).toBeGreaterThan(0);
      const everything = `${response.text}\n${JSON.stringify([...response.headers])}`;
      for (const secret of [keys.openai, keys.anthropic, app.token]) {
        expect(everything).not.toContain(secret);
      }
      expect(everything).toContain("[redacted]");
      // A body of known length is scrubbed whole and keeps a true length; a stream has none.
      expect(response.headers.get("content-length")).toBe(
        kind === "body" ? String(new TextEncoder().encode(response.text).byteLength) : null,
      );
    });
  }
});

describe("a key split across two SSE delta events (issue #23)", () => {
  it("never reaches the app, on the compat path", async () => {
    const harness = createHarness({
      gateway: (call) => {
        const key = call.headers.authorization?.replace(/^Bearer /, "") ?? "";
        const event = (content: string) =>
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
        const pieces = [
          event("key: "),
          event(key.slice(0, 8)),
          event(key.slice(8)),
          "data: [DONE]\n\n",
        ];
        return new Response(
          new ReadableStream({
            pull(controller) {
              const next = pieces.shift();
              if (next === undefined) controller.close();
              else controller.enqueue(new TextEncoder().encode(next));
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        );
      },
    });
    await harness.rotate("openai", keys.openai);
    const app = await harness.createApp();
    await harness.advance(2_000);
    const response = await harness.call("POST", `/v1/${accountId}/chat/compat/chat/completions`, {
      token: app.token,
      body: { model: "openai/gpt-4o-mini", stream: true },
    });
    expect(response.text).not.toContain(keys.openai.slice(0, 8));
    expect(response.text).not.toContain(keys.openai.slice(8));
    expect(response.text).toContain("[redacted]");
    expect(response.text.endsWith("data: [DONE]\n\n")).toBe(true);
  });
});
