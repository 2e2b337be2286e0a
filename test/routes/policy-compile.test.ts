/**
 * A policy compiled to Cloudflare's element graph: the exact elements (ids, types, properties in
 * the SDK's spelling, ports), documented operators only, stable across key orders, and a
 * well-formed graph.
 */
import { describe, expect, it } from "vitest";
import { parseConfig, type RouteConfig } from "../../src/config/index.ts";
import { compileDynamicRoute, findGraphProblems, whenConditions } from "../../src/routes/index.ts";

function routeOf(route: unknown): RouteConfig {
  return parseConfig({
    accountId: "0123456789abcdef0123456789abcdef",
    gateways: [{ id: "chat", routes: { assistant: route } }],
    keys: { providers: ["openai", "anthropic", "groq"] },
  }).gateways[0]!.routes.assistant!;
}

const to = (elementId: string) => ({ elementId });

describe("compiling a policy", () => {
  it("emits conditionals, a rate element and a percentage element in front of shared chains", () => {
    const route = routeOf({
      steps: [
        { provider: "openai", model: "gpt-4o-mini", timeoutMs: 5000 },
        { provider: "groq", model: "llama-3.1-8b-instant" },
      ],
      chains: {
        frontier: [{ provider: "anthropic", model: "claude-sonnet-4-5", retries: 1 }],
        economy: [{ provider: "groq", model: "llama-3.1-8b-instant" }],
      },
      policy: [
        { when: { plan: "free" }, use: "economy" },
        {
          when: { tier: "complex", plan: "pro" },
          use: "frontier",
          budget: { per: "plan", cost: 0.5, windowSeconds: 3600, over: "default" },
        },
        { split: { frontier: 5, economy: 20 } },
      ],
    });
    expect(compileDynamicRoute(route)).toEqual([
      { id: "start", type: "start", outputs: { next: to("rule-0") } },
      {
        id: "rule-0",
        type: "conditional",
        properties: { conditions: { "metadata.plan": { $eq: "free" } } },
        outputs: { true: to("economy-model-0"), false: to("rule-1") },
      },
      {
        id: "rule-1",
        type: "conditional",
        properties: {
          conditions: {
            $and: [{ "metadata.plan": { $eq: "pro" } }, { "metadata.tier": { $eq: "complex" } }],
          },
        },
        outputs: { true: to("rule-1-budget"), false: to("rule-2-split") },
      },
      {
        id: "rule-1-budget",
        type: "rate",
        properties: { key: "metadata.plan", limit: 0.5, limitType: "cost", window: 3600 },
        outputs: { success: to("frontier-model-0"), fallback: to("model-0") },
      },
      {
        id: "rule-2-split",
        type: "percentage",
        outputs: {
          "20%": to("economy-model-0"),
          "5%": to("frontier-model-0"),
          else: to("model-0"),
        },
      },
      {
        id: "economy-model-0",
        type: "model",
        properties: { provider: "groq", model: "llama-3.1-8b-instant" },
        outputs: { success: to("end"), fallback: to("end") },
      },
      {
        id: "frontier-model-0",
        type: "model",
        properties: { provider: "anthropic", model: "claude-sonnet-4-5", retries: 1 },
        outputs: { success: to("end"), fallback: to("end") },
      },
      {
        id: "model-0",
        type: "model",
        properties: { provider: "openai", model: "gpt-4o-mini", timeout: 5000 },
        outputs: { success: to("end"), fallback: to("model-1") },
      },
      {
        id: "model-1",
        type: "model",
        properties: { provider: "groq", model: "llama-3.1-8b-instant" },
        outputs: { success: to("end"), fallback: to("end") },
      },
      { id: "end", type: "end", outputs: {} },
    ]);
  });

  it("gives a plain route the same graph as before policies existed", () => {
    const route = routeOf([
      { provider: "openai", model: "gpt-4o-mini" },
      { provider: "anthropic", model: "claude-sonnet-4-5" },
    ]);
    expect(compileDynamicRoute(route).map((element) => element.id)).toEqual([
      "start",
      "model-0",
      "model-1",
      "end",
    ]);
  });

  it("emits only chains a path reaches, and no else for a split of 100 %", () => {
    const route = routeOf({
      steps: [{ provider: "openai", model: "gpt-4o-mini" }],
      chains: {
        a: [{ provider: "anthropic", model: "claude-sonnet-4-5" }],
        b: [{ provider: "groq", model: "llama-3.1-8b-instant" }],
      },
      policy: [{ split: { a: 30, b: 70 } }],
    });
    const elements = compileDynamicRoute(route);
    expect(elements.map((element) => element.id)).toEqual([
      "start",
      "rule-0-split",
      "a-model-0",
      "b-model-0",
      "end",
    ]);
    expect(elements[1]!.outputs).toEqual({ "30%": to("a-model-0"), "70%": to("b-model-0") });
    expect(findGraphProblems(elements)).toEqual([]);
  });

  it("compiles the same config to the same elements whatever order its keys came in", () => {
    const policy = (reversed: boolean) => {
      const when = reversed ? { tier: "complex", plan: "pro" } : { plan: "pro", tier: "complex" };
      const split = reversed ? { b: 20, a: 10 } : { a: 10, b: 20 };
      return routeOf({
        steps: [{ provider: "openai", model: "gpt-4o-mini" }],
        chains: {
          a: [{ provider: "anthropic", model: "claude-sonnet-4-5" }],
          b: [{ provider: "groq", model: "llama-3.1-8b-instant" }],
        },
        policy: [{ when, use: "a" }, { split }],
      });
    };
    expect(JSON.stringify(compileDynamicRoute(policy(true)))).toBe(
      JSON.stringify(compileDynamicRoute(policy(false))),
    );
  });

  it("writes conditions with the operators Cloudflare documents only", () => {
    expect(
      whenConditions({ plan: ["free", "trial"], region: { not: ["eu", "uk"] }, beta: true }),
    ).toEqual({
      $and: [
        { "metadata.beta": { $eq: true } },
        { "metadata.plan": { $in: ["free", "trial"] } },
        { "metadata.region": { $ne: "eu" } },
        { "metadata.region": { $ne: "uk" } },
      ],
    });
  });
});
