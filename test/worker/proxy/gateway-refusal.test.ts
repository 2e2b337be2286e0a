/**
 * Whose refusal a 401/403/429 is (src/worker/proxy/gateway-refusal.ts): the gateway's own
 * (`AiGatewayError` bodies) never moves a call to the next key or cools one; the provider's does.
 * Whatever was read to decide, the answer passed on is byte for byte the one that came.
 */
import { describe, expect, it } from "vitest";
import { classifyAnswer, maxInspectedBytes } from "../../../src/worker/proxy/gateway-refusal.ts";

const json = { "content-type": "application/json" };

describe("classifyAnswer", () => {
  it("takes Cloudflare's error envelope (named AiGatewayError, or with a 2xxx code) as the gateway's", async () => {
    for (const body of [
      '{"success":false,"result":[],"messages":[],"error":[{"code":2003,"message":"Rate limited"}],"name":"AiGatewayError","httpCode":429,"internalCode":2003}',
      '{"success":false,"error":[{"code":2041,"message":"Spend limit exceeded"}]}',
    ]) {
      const { response, byGateway } = await classifyAnswer(
        new Response(body, { status: 429, headers: json }),
      );
      expect(byGateway, body).toBe(true);
      expect(response.status).toBe(429);
      expect(await response.text()).toBe(body);
    }
  });

  it("takes a provider's refusal as the provider's, with or without telling headers", async () => {
    const openai401 =
      '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}';
    const bare = await classifyAnswer(new Response(openai401, { status: 401, headers: json }));
    expect(bare.byGateway).toBe(false);
    expect(await bare.response.text()).toBe(openai401);
    const limited = new Response("{}", {
      status: 429,
      headers: { ...json, "x-ratelimit-remaining-requests": "0" },
    });
    const headed = await classifyAnswer(limited);
    expect(headed).toEqual({ response: limited, byGateway: false });
    const stepped = await classifyAnswer(
      new Response('{"name":"AiGatewayError"}', { status: 403, headers: { "cf-aig-step": "1" } }),
    );
    expect(stepped.byGateway).toBe(false);
  });

  it("passes a body longer than it reads on whole, as the provider's", async () => {
    const chunk = new Uint8Array(16 * 1024).fill(120);
    const chunks = Math.ceil((maxInspectedBytes * 2) / chunk.byteLength);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === chunks) controller.close();
        else {
          sent++;
          controller.enqueue(chunk);
        }
      },
    });
    const { response, byGateway } = await classifyAnswer(new Response(body, { status: 429 }));
    expect(byGateway).toBe(false);
    expect((await response.arrayBuffer()).byteLength).toBe(chunks * chunk.byteLength);
  });

  it("leaves other statuses alone", async () => {
    const ok = new Response('{"name":"AiGatewayError"}', { status: 200 });
    expect(await classifyAnswer(ok)).toEqual({ response: ok, byGateway: false });
  });
});
