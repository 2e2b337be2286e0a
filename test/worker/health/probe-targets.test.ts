/**
 * Which provider/models the cron's health probes cover: every model a route can send — its steps
 * and the chains its policy picks — for the providers the Worker holds keys for, each once.
 */
import { describe, expect, it } from "vitest";
import { parseConfig, workerView } from "../../../src/config/index.ts";
import { probeTargets } from "../../../src/worker/health/probe.ts";

/** A config whose routes send four models through one gateway, with probes on or off. */
function configWithProbes(enabled: boolean) {
  return parseConfig({
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
    worker: { healthProbe: { enabled } },
  });
}

describe("probeTargets", () => {
  it("covers the route's steps and its policy's chains, each model once, only for keys the Worker holds", () => {
    expect(probeTargets(workerView(configWithProbes(true)))).toEqual([
      { provider: "anthropic", model: "claude-sonnet-4-5", gateway: "chat" },
      { provider: "openai", model: "gpt-4o-mini", gateway: "chat" },
    ]);
  });

  it("is empty with worker.healthProbe off: the Worker's view then carries no targets", () => {
    const view = workerView(configWithProbes(false));
    expect(view.probes).toEqual({});
    expect(probeTargets(view)).toEqual([]);
  });
});
