/**
 * Universal steps with `provider: "compat"`: Cloudflare's unified API inside a fallback chain, as
 * `ai-gateway-provider`'s `unified()` sends it — `provider/model` answered in OpenAI's shape, and
 * `dynamic/<route>` running the gateway's dynamic route.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import { emulatorWith, postJson, testConfig } from "../helpers.ts";

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const config = testConfig([
  {
    id: "chat",
    authentication: true,
    byok: { providers: ["anthropic", "openai"] },
    routes: {
      default: [
        { provider: "anthropic", model: "claude-sonnet-4-5" },
        { provider: "openai", model: "gpt-4o-mini" },
      ],
    },
  },
]);

const compatStep = (model: string, headers: Record<string, string> = {}) => ({
  provider: "compat",
  endpoint: "chat/completions",
  headers,
  query: { model, messages: [{ role: "user", content: "Hello" }] },
});

describe("compat universal steps", () => {
  it("accepts the chat/completion spelling of dynamic-routing/usage.mdx's Workers example", async () => {
    ({ emulator } = await emulatorWith({ config }));
    const response = await postJson(emulator.gatewayUrl("chat"), {
      ...compatStep("openai/gpt-4o-mini"),
      endpoint: "chat/completion",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-provider")).toBe("openai");
    const other = await postJson(emulator.gatewayUrl("chat"), {
      ...compatStep("openai/gpt-4o-mini"),
      endpoint: "embeddings",
    });
    expect(other.status).toBe(400);
  });

  it("answers provider/model in OpenAI's shape, falling back between steps", async () => {
    ({ emulator } = await emulatorWith({
      config,
      faults: { rules: [{ provider: "anthropic", kind: "unavailable" }] },
    }));
    const response = await postJson(emulator.gatewayUrl("chat"), [
      compatStep("anthropic/claude-sonnet-4-5"),
      compatStep("openai/gpt-4o-mini"),
    ]);
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    const body = (await response.json()) as { object: string; choices: unknown[] };
    expect(body.object).toBe("chat.completion");
    expect(emulator.logs("chat").map((log) => [log.step, log.provider, log.success])).toEqual([
      [0, "anthropic", false],
      [1, "openai", true],
    ]);
  });

  it("converts a non-OpenAI provider's answer and runs dynamic/<route> as a step", async () => {
    ({ emulator } = await emulatorWith({ config }));
    const anthropic = await postJson(emulator.gatewayUrl("chat"), [
      compatStep("anthropic/claude-sonnet-4-5"),
    ]);
    expect(((await anthropic.json()) as { object: string }).object).toBe("chat.completion");
    const routed = await postJson(emulator.gatewayUrl("chat"), [compatStep("dynamic/default")]);
    expect(routed.status).toBe(200);
    expect(routed.headers.get("cf-aig-step")).toBe("0");
    expect(routed.headers.get("cf-aig-provider")).toBe("anthropic");
    await routed.text();
  });

  it("refuses an endpoint other than chat/completions, naming the step", async () => {
    ({ emulator } = await emulatorWith({ config }));
    const response = await postJson(emulator.gatewayUrl("chat"), [
      { ...compatStep("openai/gpt-4o-mini"), endpoint: "embeddings" },
    ]);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Step 0 uses provider \\"compat\\"');
  });
});
