/**
 * Which provider/models the cron's health probes cover: every model a route can send — its steps
 * and the chains its policy picks — for the providers the Worker holds keys for, each once.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.ts";
import { probeTargets } from "../../src/worker/health/probe.ts";

describe("probeTargets", () => {
  it("covers the route's steps and its policy's chains, each model once, only for keys the Worker holds", () => {
    const config = parseConfig({
      accountId: "0123456789abcdef0123456789abcdef",
      gateways: [
        {
          id: "chat",
          routes: {
            assistant: {
              steps: [
                { provider: "openai", model: "gpt-4o-mini" },
                { provider: "groq", model: "llama-3.1-8b-instant" },
              ],
              chains: {
                frontier: [
                  { provider: "anthropic", model: "claude-sonnet-4-5" },
                  { provider: "openai", model: "gpt-4o-mini" },
                ],
              },
              policy: [{ when: { plan: "pro" }, use: "frontier" }],
            },
          },
          byok: { providers: ["groq"] },
        },
      ],
      keys: { providers: ["openai", "anthropic"] },
    });
    expect(probeTargets(config)).toEqual([
      { provider: "anthropic", model: "claude-sonnet-4-5", gateway: "chat" },
      { provider: "openai", model: "gpt-4o-mini", gateway: "chat" },
    ]);
  });
});
