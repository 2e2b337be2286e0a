/**
 * What Cloudflare receives for a gateway's `byokOnly`, Guardrails, DLP, OpenTelemetry exporters
 * and spend limits with metadata dimensions (issue #25 item 3), under Pulumi's mocks: the inputs
 * of `cloudflare.AiGateway` (@pulumi/cloudflare 6.22.1 field names), what `ignoreChanges` leaves
 * to the dashboard, and the preflight refusing what the provider cannot send.
 */
import type * as cloudflare from "@pulumi/cloudflare";
import type * as pulumi from "@pulumi/pulumi";
import { beforeEach, describe, expect, it } from "vitest";
import { parseConfig, type StepwiseConfig } from "../../src/config/index.ts";
import { pulumiGuardrailCategories } from "../../src/config/unsendable-settings.ts";
import { buildStack } from "../../src/pulumi/stack.ts";
import { installMocks, type Recorder, settle } from "./helpers.ts";

const accountId = "0123456789abcdef0123456789abcdef";

function configWith(gateway: Record<string, unknown>): StepwiseConfig {
  return parseConfig({
    accountId,
    gateways: [
      {
        id: "support",
        authentication: true,
        credentials: "request",
        routes: { default: { dynamic: false, steps: [{ provider: "openai", model: "gpt-4o" }] } },
        ...gateway,
      },
    ],
  });
}

let recorder: Recorder;
let transformation: pulumi.ResourceTransformation;

beforeEach(async () => {
  ({ recorder, transformation } = await installMocks("features"));
});

async function deployed(config: StepwiseConfig) {
  buildStack(config, { resourceOptions: { transformations: [transformation] } });
  await settle();
  return recorder.named("support-gateway");
}

describe("gateway features Pulumi sends", () => {
  it("sends byokOnly, Guardrails, DLP, OpenTelemetry and spend-limit metadata as Cloudflare names them", async () => {
    const gateway = await deployed(
      configWith({
        // Changelog 2026-09-14: "To use the API, set `byok_only` to `true`".
        byokOnly: true,
        guardrails: { prompt: { s1: "block", p1: "flag" }, response: { s10: "flag" } },
        dlp: { action: "block", profiles: ["pii-profile"] },
        otel: [
          {
            url: "https://otel.example.com/v1/traces",
            headers: { "x-team": "support" },
            contentType: "protobuf",
          },
        ],
        spendLimits: [
          // spend-limits.mdx: "Split by value — Each distinct value gets its own independent
          // budget bucket"; "Filter by value — The rule applies only when the dimension equals a
          // specific value."
          {
            id: "per-agent",
            limit: 5,
            windowSeconds: 86400,
            metadata: { agent_id: "split", environment: ["production"] },
            providers: ["openai"],
          },
        ],
      }),
    );
    expect(gateway.inputs).toMatchObject({
      byokOnly: true,
      guardrails: { prompt: { s1: "BLOCK", p1: "FLAG" }, response: { s10: "FLAG" } },
      dlp: { enabled: true, action: "BLOCK", profiles: ["pii-profile"] },
      otels: [
        {
          url: "https://otel.example.com/v1/traces",
          headers: { "x-team": "support" },
          contentType: "protobuf",
        },
      ],
      spendLimits: {
        enabled: true,
        rules: [
          {
            id: "per-agent",
            limit: 5,
            limitType: "cost",
            window: 86400,
            aiGatewayProvider: { mode: "filter", values: ["openai"] },
            metadata: {
              agent_id: { mode: "partition" },
              environment: { mode: "filter", values: ["production"] },
            },
          },
        ],
      },
    });
    const ignored = gateway.options.ignoreChanges ?? [];
    for (const managed of ["byokOnly", "guardrails", "dlp", "otels"]) {
      expect(ignored).not.toContain(managed);
    }
  });

  it("leaves the settings a config does not name to the dashboard: not sent, changes ignored", async () => {
    const gateway = await deployed(configWith({}));
    for (const field of ["byokOnly", "guardrails", "dlp", "otels"]) {
      expect(gateway.inputs).not.toHaveProperty(field);
      expect(gateway.options.ignoreChanges).toContain(field);
    }
  });

  it("sends byokOnly: false when the config turns it off", async () => {
    const gateway = await deployed(configWith({ byokOnly: false }));
    expect(gateway.inputs.byokOnly).toBe(false);
    expect(gateway.options.ignoreChanges).not.toContain("byokOnly");
  });
});

describe("what Pulumi cannot send is refused before anything is registered", () => {
  it("knows the Guardrails categories 6.22.1 has fields for, prompt and response alike", () => {
    // Exhaustive for the provider's types: a category added or removed fails to compile here.
    const prompt: Record<keyof cloudflare.types.input.AiGatewayGuardrailsPrompt, true> = {
      p1: true,
      s1: true,
      s2: true,
      s3: true,
      s4: true,
      s5: true,
      s6: true,
      s7: true,
      s8: true,
      s9: true,
      s10: true,
      s11: true,
      s12: true,
      s13: true,
    };
    const response: Record<keyof cloudflare.types.input.AiGatewayGuardrailsResponse, true> = prompt;
    expect(new Set(Object.keys(response))).toEqual(pulumiGuardrailCategories);
  });

  it("a Guardrails category the provider has no field for", () => {
    const build = () =>
      buildStack(configWith({ guardrails: { prompt: { s14: "block" } } }), {
        resourceOptions: { transformations: [transformation] },
      });
    expect(build).toThrow(
      'gateways[0].guardrails.prompt.s14: @pulumi/cloudflare 6.22.1 cannot send Guardrails category "s14"',
    );
    expect(recorder.resources).toEqual([]);
  });

  it("a spend limit split by provider or model (the provider takes filters only)", () => {
    const build = () =>
      buildStack(
        configWith({
          spendLimits: [{ limit: 5, windowSeconds: 3600, providers: "split", models: "split" }],
        }),
        { resourceOptions: { transformations: [transformation] } },
      );
    expect(build).toThrow(/spendLimits\[0\]\.providers: .*only as a filter/);
    expect(build).toThrow(/spendLimits\[0\]\.models: .*only as a filter/);
    expect(recorder.resources).toEqual([]);
  });
});
