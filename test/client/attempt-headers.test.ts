/**
 * Each attempt tells the gateway its place in the route (`stepwise` in `cf-aig-metadata`, see
 * src/wire/attempt-place.ts) when it re-sends or reorders the chain, so the gateway's logs can be
 * read back as route steps; a first, in-order request sends the call's metadata unchanged.
 */
import { describe, expect, it } from "vitest";
import { createTestServer, type TestResponse } from "../helpers/test-server.ts";
import { fixtureJson, gatewayUrl, messages, servedHeaders, testClient } from "./helpers.ts";

function answerFrom(position: number, provider: string, model: string): TestResponse {
  return {
    type: "json",
    body: fixtureJson(`providers/${provider}/response.json`),
    headers: servedHeaders(position, provider, model),
  };
}

const anthropic = answerFrom(0, "anthropic", "claude-sonnet-4-5");
const server = createTestServer({ [gatewayUrl]: { response: anthropic } });

function metadataSent(callIndex: number): Record<string, unknown> {
  return JSON.parse(server.calls[callIndex]!.headers["cf-aig-metadata"]!);
}

describe("an attempt's place in cf-aig-metadata", () => {
  it("is not sent on a first request that holds the route's steps in order", async () => {
    server.urls[gatewayUrl]!.response = anthropic;
    const { client } = testClient();
    await client.chat({ route: "default", messages, metadata: { plan: "pro" } });
    expect(metadataSent(0)).toEqual({ route: "default", plan: "pro" });
  });

  it("names the route steps a re-sent rest of the chain holds, and the time before it", async () => {
    server.urls[gatewayUrl]!.response = [anthropic, answerFrom(0, "openai", "gpt-4o-mini")];
    const { client, clock } = testClient();
    await client.chat({
      route: "default",
      messages,
      metadata: { plan: "pro" },
      validate: (answer) => {
        clock.advance(40);
        return answer.served.provider !== "anthropic";
      },
    });
    expect(metadataSent(0)).toEqual({ route: "default", plan: "pro" });
    const second = metadataSent(1);
    expect(second).toEqual({
      route: "default",
      stepwise: "attempt=2;steps=1.2;elapsed=40",
      plan: "pro",
    });
    // Second, after route: within the five entries the gateway keeps.
    expect(Object.keys(second)).toEqual(["route", "stepwise", "plan"]);
  });

  it("is left out when the call's metadata already fills the gateway's five entries", async () => {
    server.urls[gatewayUrl]!.response = [anthropic, answerFrom(0, "openai", "gpt-4o-mini")];
    const { client } = testClient();
    const metadata = { a: 1, b: 2, c: 3, d: 4, e: 5 };
    await client.chat({
      route: "default",
      messages,
      metadata,
      validate: (answer) => answer.served.provider !== "anthropic",
    });
    expect(metadataSent(1)).toEqual(metadata);
  });
});
