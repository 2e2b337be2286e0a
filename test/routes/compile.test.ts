import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { builtInProviderSlugs, type RouteConfig, type StepConfig } from "../../src/config/index.ts";
import { getProvider } from "../../src/providers/index.ts";
import {
  compileDynamicRoute,
  compileUniversalRequest,
  fallbackChain,
  findGraphProblems,
  resolveServedStep,
} from "../../src/routes/index.ts";

const request = { messages: [{ role: "user" as const, content: "Say hello" }], maxTokens: 64 };

const stepArbitrary: fc.Arbitrary<StepConfig> = fc.record(
  {
    provider: fc.oneof(
      fc.constantFrom(...builtInProviderSlugs),
      fc.stringMatching(/^custom-[a-z0-9]{1,8}$/),
    ),
    model: fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,20}$/),
    timeoutMs: fc.integer({ min: 100, max: 60_000 }),
    retries: fc.integer({ min: 0, max: 4 }),
    retryDelayMs: fc.integer({ min: 0, max: 5_000 }),
    backoff: fc.constantFrom("constant" as const, "linear" as const, "exponential" as const),
    cacheTtl: fc.constantFrom(0, 60, 3600),
  },
  { requiredKeys: ["provider", "model"] },
);

/** Routes as the config allows them: 1–6 steps, no provider/model pair twice. */
const routeArbitrary: fc.Arbitrary<RouteConfig> = fc
  .uniqueArray(stepArbitrary, {
    minLength: 1,
    maxLength: 6,
    selector: (step) => `${step.provider}/${step.model}`,
  })
  .map((steps) => ({ steps }));

describe("route compilers over generated routes", () => {
  it("compile to a universal request with one step per route step, in order", () => {
    fc.assert(
      fc.property(routeArbitrary, (route) => {
        const body = compileUniversalRequest(route, request);
        expect(body).toHaveLength(route.steps.length);
        body.forEach((universal, index) => {
          const step = route.steps[index]!;
          const adapter = getProvider(step.provider);
          expect(universal.provider).toBe(step.provider);
          expect(universal.endpoint).toBe(adapter.endpoint(step.model, request));
          expect(universal.query).toEqual(adapter.requestBody(step.model, request));
          expect(universal.config?.requestTimeout).toBe(step.timeoutMs);
          expect(universal.config?.maxAttempts).toBe(
            step.retries === undefined ? undefined : step.retries + 1,
          );
          expect(universal.config?.retryDelay).toBe(step.retryDelayMs);
          expect(universal.config?.backoff).toBe(step.backoff);
          expect(universal.headers["cf-aig-cache-ttl"]).toBe(
            step.cacheTtl === undefined ? undefined : String(step.cacheTtl),
          );
        });
      }),
      { numRuns: 300 },
    );
  });

  it("compile to a well-formed element graph whose fallback order is the route's order", () => {
    fc.assert(
      fc.property(routeArbitrary, (route) => {
        const elements = compileDynamicRoute(route);
        expect(findGraphProblems(elements)).toEqual([]);
        const chain = fallbackChain(elements).map((element) => element.properties);
        expect(chain).toEqual(
          route.steps.map((step) =>
            expect.objectContaining({ provider: step.provider, model: step.model }),
          ),
        );
        expect(compileDynamicRoute(route)).toEqual(elements);
      }),
      { numRuns: 300 },
    );
  });

  it("find the way back from cf-aig-step, and from cf-aig-provider + cf-aig-model", () => {
    fc.assert(
      fc.property(
        routeArbitrary.chain((route) =>
          fc.tuple(fc.constant(route), fc.nat({ max: route.steps.length - 1 })),
        ),
        ([route, index]) => {
          const step = route.steps[index]!;
          expect(resolveServedStep(route, { step: String(index) })?.index).toBe(index);
          expect(
            resolveServedStep(route, { provider: step.provider, model: step.model })?.index,
          ).toBe(index);
          expect(
            resolveServedStep(route, {
              step: String(index),
              provider: step.provider,
              model: step.model,
            })?.step,
          ).toBe(step);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("compileUniversalRequest", () => {
  const route: RouteConfig = {
    steps: [
      { provider: "anthropic", model: "claude-sonnet-4-5", timeoutMs: 15_000, retries: 1 },
      { provider: "openai", model: "gpt-4o-mini" },
    ],
  };

  it("fills each step's auth header in the provider's own form from the key lookup", () => {
    const keys: Record<string, string> = { anthropic: "sk-ant-test", openai: "sk-openai-test" };
    const [anthropic, openai] = compileUniversalRequest(route, request, {
      keyLookup: (provider) => keys[provider],
    });
    expect(anthropic!.headers).toMatchObject({
      "x-api-key": "sk-ant-test",
      "anthropic-version": "2023-06-01",
    });
    expect(anthropic!.config).toEqual({ requestTimeout: 15_000, maxAttempts: 2 });
    expect(openai!.headers).toMatchObject({ authorization: "Bearer sk-openai-test" });
    expect(openai!).not.toHaveProperty("config");
  });

  it("leaves keys out when the gateway or the Worker supplies them", () => {
    const body = compileUniversalRequest(route, request);
    for (const step of body) {
      expect(Object.keys(step.headers).map((name) => name.toLowerCase())).not.toContain(
        "authorization",
      );
      expect(Object.keys(step.headers)).not.toContain("x-api-key");
    }
    expect(body[0]!.headers["anthropic-version"]).toBe("2023-06-01");
  });
});

describe("resolveServedStep", () => {
  const route: RouteConfig = {
    steps: [
      { provider: "openai", model: "gpt-4o" },
      { provider: "openai", model: "gpt-4o-mini" },
      { provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct" },
    ],
  };

  it("prefers provider and model over a stale step index", () => {
    expect(
      resolveServedStep(route, {
        step: "0",
        provider: "workers-ai",
        model: "@cf/meta/llama-3.1-8b-instruct",
      })?.index,
    ).toBe(2);
  });

  it("returns undefined for headers that match no step", () => {
    expect(resolveServedStep(route, { step: "7" })).toBeUndefined();
    expect(resolveServedStep(route, { step: "-1" })).toBeUndefined();
    expect(resolveServedStep(route, { provider: "groq", model: "x" })).toBeUndefined();
    expect(resolveServedStep(route, {})).toBeUndefined();
  });
});
