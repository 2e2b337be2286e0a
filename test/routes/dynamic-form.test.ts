/**
 * What a route becomes as a dynamic route: which step settings a model element carries, which
 * ones it drops (and the deploy checks' warnings about them), and whether Cloudflare would run it
 * on its gateway at all (authentication + stored keys).
 */
import { describe, expect, it } from "vitest";
import { parseConfig, type StepConfig } from "../../src/config/index.ts";
import {
  compileDynamicRoute,
  droppedDynamicSettings,
  findDeployProblems,
  findGraphProblems,
  RouteGraphBuilder,
} from "../../src/routes/index.ts";

const accountId = "0123456789abcdef0123456789abcdef";

function config(gateway: Record<string, unknown>) {
  return parseConfig({
    accountId,
    gateways: [{ id: "chat", ...gateway }],
    keys: { providers: ["openai", "anthropic", "groq"] },
  });
}

describe("dynamic-route form of a route", () => {
  it("carries provider, model, timeout and retries, and nothing else", () => {
    const step: StepConfig = {
      provider: "openai",
      model: "gpt-4o-mini",
      timeoutMs: 5000,
      retries: 2,
      retryDelayMs: 250,
      backoff: "exponential",
      cacheTtl: 0,
    };
    const [, model] = compileDynamicRoute({ steps: [step] });
    expect(model!.properties).toEqual({
      provider: "openai",
      model: "gpt-4o-mini",
      timeout: 5000,
      retries: 2,
    });
    expect(droppedDynamicSettings({ steps: [step], deadlineMs: 9000 })).toEqual([
      { step: undefined, setting: "deadlineMs", value: 9000, reason: expect.any(String) },
      {
        chain: "default",
        step: 0,
        setting: "retryDelayMs",
        value: 250,
        reason: expect.any(String),
      },
      {
        chain: "default",
        step: 0,
        setting: "backoff",
        value: "exponential",
        reason: expect.any(String),
      },
      { chain: "default", step: 0, setting: "cacheTtl", value: 0, reason: expect.any(String) },
    ]);
  });

  it("builds chains that can lead into each other, with stable ids", () => {
    const graph = new RouteGraphBuilder();
    const backup = graph.chain([{ provider: "groq", model: "llama-3.1-8b-instant" }], {
      name: "backup",
    });
    const entry = graph.chain(
      [
        { provider: "openai", model: "gpt-4o-mini" },
        { provider: "anthropic", model: "claude-sonnet-4-5" },
      ],
      { exhausted: backup },
    );
    const elements = graph.build(entry);
    expect(findGraphProblems(elements)).toEqual([]);
    expect(elements.map((element) => element.id)).toEqual([
      "start",
      "backup-model-0",
      "model-0",
      "model-1",
      "end",
    ]);
    expect(elements.find((element) => element.id === "model-1")!.outputs.fallback).toEqual({
      elementId: "backup-model-0",
    });
    expect(() => graph.chain([{ provider: "openai", model: "x" }])).toThrow(/used twice/);
  });
});

describe("findDeployProblems", () => {
  const steps = [
    { provider: "openai", model: "gpt-4o-mini" },
    { provider: "anthropic", model: "claude-sonnet-4-5" },
  ];

  it("is silent for an authenticated gateway that stores every provider's key", () => {
    const findings = findDeployProblems(
      config({
        authentication: true,
        byok: { providers: ["openai", "anthropic"] },
        routes: { default: steps },
      }),
    );
    expect(findings).toEqual([]);
  });

  it("is an error, with the fix, on an unauthenticated gateway", () => {
    const findings = findDeployProblems(
      config({ byok: { providers: ["openai", "anthropic"] }, routes: { default: steps } }),
    );
    expect(findings).toEqual([
      {
        severity: "error",
        path: ["gateways", 0, "routes", "default"],
        message: expect.stringMatching(
          /not authenticated.*set gateways\[0\]\.authentication: true, or set dynamic: false on route "default"/,
        ),
      },
    ]);
  });

  it("is an error per provider without a stored key, at its first step", () => {
    const findings = findDeployProblems(
      config({
        authentication: true,
        byok: { providers: ["openai"] },
        routes: { default: [...steps, { provider: "anthropic", model: "claude-haiku-4-5" }] },
      }),
    );
    expect(findings.map((finding) => [finding.severity, finding.path])).toEqual([
      ["error", ["gateways", 0, "routes", "default", "steps", 1, "provider"]],
    ]);
    expect(findings[0]!.message).toMatch(
      /add anthropic to gateways\[0\]\.byok\.providers .*stepwise:byokKeys\.anthropic/,
    );
  });

  it("warns about each setting the dynamic form drops, naming setting and route", () => {
    const findings = findDeployProblems(
      config({
        authentication: true,
        byok: { providers: ["openai"] },
        routes: {
          default: { deadlineMs: 20000, steps: [{ ...steps[0], cacheTtl: 0, backoff: "linear" }] },
        },
      }),
    );
    expect(findings.map((finding) => [finding.severity, finding.path.at(-1)])).toEqual([
      ["warning", "deadlineMs"],
      ["warning", "backoff"],
      ["warning", "cacheTtl"],
    ]);
    expect(findings[2]!.message).toMatch(
      /^step 0 of route "default" sets cacheTtl: 0, which dynamic\/default cannot express/,
    );
  });

  it("leaves universal-only routes alone, whatever the gateway", () => {
    const findings = findDeployProblems(
      config({ routes: { default: { dynamic: false, steps: [{ ...steps[0], cacheTtl: 0 }] } } }),
    );
    expect(findings).toEqual([]);
  });
});
