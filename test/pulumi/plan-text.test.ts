/**
 * `stepwise plan`'s text for a gateway's credential and feature inputs (issue #25 item 3): the
 * new `cloudflare.AiGateway` inputs are shown, spend limit rules one a line with their
 * dimensions, OpenTelemetry exporters without their header values.
 */
import { describe, expect, it } from "vitest";
import type { StackPlan } from "../../src/pulumi/plan.ts";
import { formatPlan } from "../../src/pulumi/plan-text.ts";

const plan: StackPlan = {
  stack: "features",
  source: "Pulumi.features.yaml",
  warnings: [],
  resources: [
    {
      type: "cloudflare:index/aiGateway:AiGateway",
      name: "support-gateway",
      parent: undefined,
      component: false,
      secretInputs: [],
      inputs: {
        aiGatewayId: "support",
        byokOnly: true,
        guardrails: { prompt: { s1: "BLOCK" }, response: {} },
        otels: [
          {
            url: "https://otel.example.com/v1/traces",
            contentType: "json",
            headers: { authorization: "Bearer collector-token" },
          },
        ],
        spendLimits: {
          enabled: true,
          rules: [
            {
              id: "per-agent",
              limitType: "cost",
              limit: 5,
              window: 86400,
              technique: "sliding",
              aiGatewayProvider: { mode: "filter", values: ["openai", "anthropic"] },
              metadata: {
                agent_id: { mode: "partition" },
                environment: { mode: "filter", values: ["production"] },
              },
            },
          ],
        },
      },
    },
  ],
};

describe("stepwise plan's text", () => {
  const text = formatPlan(plan);

  it("shows byokOnly and Guardrails as sent", () => {
    expect(text).toContain("byokOnly: true");
    expect(text).toContain('guardrails: {"prompt":{"s1":"BLOCK"},"response":{}}');
  });

  it("lists each spend limit rule with its provider, model and metadata dimensions", () => {
    expect(text).toMatch(
      /spendLimits:\n\s+per-agent cost 5 per 86400s sliding provider=openai,anthropic metadata\.agent_id=split metadata\.environment=production\n/,
    );
  });

  it("lists exporters by URL and header names, never header values", () => {
    expect(text).toMatch(
      /otels:\n\s+https:\/\/otel\.example\.com\/v1\/traces json headers=authorization/,
    );
    expect(text).not.toContain("collector-token");
  });
});
