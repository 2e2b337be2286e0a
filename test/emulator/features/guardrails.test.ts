/**
 * Guardrails outcomes as fault kinds the gateway applies, with the statuses and codes of
 * features/guardrails/set-up-guardrail.mdx ("Error handling and blocked requests") and the
 * changelog of 2026-09-17: "Provider endpoints return HTTP 424 with code 2016 for blocked prompts
 * or code 2017 for blocked responses. The /run API returns HTTP 422 with code 2017 for blocked
 * content." "Scanner credit errors return HTTP 402 with AI Gateway code 2021. Scanner service
 * errors return HTTP 503 with code 7013 when a Block rule applies."
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import type { FaultRule } from "../../../src/emulator/mocks/index.ts";
import { parseFaultFlag } from "../../../src/emulator/mocks/index.ts";
import { accountId, emulatorWith, postJson, testConfig, token, universalBody } from "../helpers.ts";

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const chat = {
  model: "gpt-4o-mini",
  messages: [{ role: "user", content: "how to build a gun?" }],
};

async function withRules(...rules: FaultRule[]) {
  ({ emulator } = await emulatorWith({ faults: { rules } }));
  return emulator;
}

function native(gateway: Emulator) {
  return postJson(`${gateway.gatewayUrl("open")}/openai/chat/completions`, chat, {
    authorization: "Bearer sk-test",
  });
}

describe("Guardrails outcomes", () => {
  it("blocks a prompt with 424 (2016) without calling the provider", async () => {
    const gateway = await withRules({ kind: "guardrail-prompt-blocked", provider: "openai" });
    const response = await native(gateway);
    expect(response.status).toBe(424);
    expect(await response.json()).toMatchObject({
      name: "AiGatewayError",
      internalCode: 2016,
      error: [{ code: 2016 }],
    });
    expect(gateway.mocks!.attempts).toEqual([]);
    expect(gateway.logs("open")[0]).toMatchObject({
      success: false,
      status_code: 424,
      error: "guardrail_prompt_blocked",
    });
  });

  it("blocks a response with 424 (2017) after the provider answered", async () => {
    const gateway = await withRules({ kind: "guardrail-response-blocked" });
    const response = await native(gateway);
    expect(response.status).toBe(424);
    expect(await response.json()).toMatchObject({ internalCode: 2017 });
    expect(gateway.mocks!.attempts).toHaveLength(1);
  });

  it("answers the scanner's credit error with 402 (2021) and its outage with 503 (7013)", async () => {
    const gateway = await withRules(
      { kind: "guardrail-no-credits", count: 1 },
      { kind: "guardrail-unavailable", count: 1 },
    );
    const noCredits = await native(gateway);
    const unavailable = await native(gateway);
    const healthy = await native(gateway);
    expect([noCredits.status, unavailable.status, healthy.status]).toEqual([402, 503, 200]);
    expect(await noCredits.json()).toMatchObject({ internalCode: 2021 });
    expect(await unavailable.json()).toMatchObject({ internalCode: 7013 });
  });

  it("answers the REST API's /ai/run with 422 (2017) for blocked content", async () => {
    const gateway = await withRules({ kind: "guardrail-prompt-blocked" });
    const response = await fetch(`${gateway.url}/client/v4/accounts/${accountId}/ai/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "openai/gpt-4.1", input: { messages: chat.messages } }),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ name: "AiGatewayError", internalCode: 2017 });
  });

  it("keeps Cloudflare's body on the compat endpoint and ends a universal chain", async () => {
    const gateway = await withRules({ kind: "guardrail-prompt-blocked", provider: "anthropic" });
    const compat = await postJson(`${gateway.compatUrl("open")}/chat/completions`, {
      ...chat,
      model: "anthropic/claude-sonnet-4-5",
    });
    expect(compat.status).toBe(424);
    expect(await compat.json()).toMatchObject({ error: [{ code: 2016 }] });
    const universal = await postJson(
      gateway.gatewayUrl("open"),
      universalBody(testConfig(), "open"),
    );
    // The same prompt would be blocked on every step: the chain ends at the first.
    expect(universal.status).toBe(424);
    expect(universal.headers.get("cf-aig-step")).toBe("0");
    expect(gateway.mocks!.attempts).toEqual([]);
  });

  it("is a fault kind of --fault-rule", () => {
    expect(parseFaultFlag("openai=guardrail-response-blocked,count=1")).toEqual({
      provider: "openai",
      kind: "guardrail-response-blocked",
      count: 1,
    });
  });
});
