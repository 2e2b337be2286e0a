/**
 * The pure mappings behind the components: route elements in the Pulumi spelling, the route
 * graph hash, gateway settings with explicit "off" values, and wrangler.jsonc reading.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.ts";
import {
  canonicalJson,
  expressibleInPulumi,
  routeGraphHash,
  toPulumiElements,
} from "../../src/pulumi/dynamic-route.ts";
import { gatewaySettings, ignoredGatewayFields } from "../../src/pulumi/gateway-settings.ts";
import { readWranglerSettings, stripJsonComments } from "../../src/pulumi/wrangler-config.ts";
import type { RouteElement } from "../../src/routes/index.ts";

const accountId = "0123456789abcdef0123456789abcdef";

describe("toPulumiElements", () => {
  it("renames provider, stringifies conditions and keeps rate elements' properties", () => {
    const elements: RouteElement[] = [
      { id: "start", type: "start", outputs: { next: { elementId: "plan" } } },
      {
        id: "plan",
        type: "conditional",
        properties: { conditions: { "metadata.plan": { $eq: "free" } } },
        outputs: { true: { elementId: "budget" }, false: { elementId: "model-0" } },
      },
      {
        id: "budget",
        type: "rate",
        properties: { key: "metadata.user", limit: 10, limitType: "count", window: 60 },
        outputs: { success: { elementId: "model-0" }, fallback: { elementId: "end" } },
      },
      {
        id: "model-0",
        type: "model",
        properties: { provider: "openai", model: "gpt-4o-mini", timeout: 1000, retries: 2 },
        outputs: { success: { elementId: "end" }, fallback: { elementId: "end" } },
      },
      { id: "end", type: "end", outputs: {} },
    ];

    expect(toPulumiElements(elements)).toEqual([
      { id: "start", type: "start", outputs: { next: { elementId: "plan" } } },
      {
        id: "plan",
        type: "conditional",
        properties: { conditions: '{"metadata.plan":{"$eq":"free"}}' },
        outputs: { true: { elementId: "budget" }, false: { elementId: "model-0" } },
      },
      {
        id: "budget",
        type: "rate",
        properties: { key: "metadata.user", limit: 10, limitType: "count", window: 60 },
        outputs: { success: { elementId: "model-0" }, fallback: { elementId: "end" } },
      },
      {
        id: "model-0",
        type: "model",
        properties: {
          aiGatewayDynamicRoutingProvider: "openai",
          model: "gpt-4o-mini",
          timeout: 1000,
          retries: 2,
        },
        outputs: { success: { elementId: "end" }, fallback: { elementId: "end" } },
      },
      { id: "end", type: "end", outputs: {} },
    ]);
  });

  it("refuses ports and properties the Pulumi schema cannot hold instead of dropping them", () => {
    const split: RouteElement = {
      id: "split",
      type: "percentage",
      outputs: { "10%": { elementId: "a" }, else: { elementId: "b" } },
    };
    const odd: RouteElement = {
      id: "m",
      type: "model",
      properties: { provider: "openai", model: "x", temperature: 0 },
      outputs: {},
    };

    expect(() => toPulumiElements([split])).toThrow(/element "split" has output "10%"/);
    expect(() => toPulumiElements([odd])).toThrow(/element "m" has property "temperature"/);
  });
});

describe("expressibleInPulumi", () => {
  it("is false exactly for graphs with ports or properties AiGatewayDynamicRouting has no field for", () => {
    const start: RouteElement = {
      id: "start",
      type: "start",
      outputs: { next: { elementId: "x" } },
    };
    const split: RouteElement = {
      id: "x",
      type: "percentage",
      outputs: { "10%": { elementId: "end" }, else: { elementId: "end" } },
    };
    const budget: RouteElement = {
      id: "x",
      type: "rate",
      properties: { key: "metadata.user", limit: 1, limitType: "cost", window: 60 },
      outputs: { success: { elementId: "end" }, fallback: { elementId: "end" } },
    };
    const end: RouteElement = { id: "end", type: "end", outputs: {} };
    expect(expressibleInPulumi([start, budget, end])).toBe(true);
    expect(expressibleInPulumi([start, split, end])).toBe(false);
  });
});

describe("routeGraphHash", () => {
  it("depends on the graph, not on the order its object keys were written in", () => {
    const a: RouteElement[] = [
      { id: "start", type: "start", outputs: { next: { elementId: "end" } } },
      { id: "end", type: "end", outputs: {} },
    ];
    const b = [
      { outputs: { next: { elementId: "end" } }, type: "start", id: "start" },
      { type: "end", outputs: {}, id: "end" },
    ] as RouteElement[];
    const c: RouteElement[] = [
      { id: "start", type: "start", outputs: { next: { elementId: "model-0" } } },
      { id: "end", type: "end", outputs: {} },
    ];

    expect(routeGraphHash(a)).toBe(routeGraphHash(b));
    expect(routeGraphHash(a)).not.toBe(routeGraphHash(c));
    expect(routeGraphHash(a)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(canonicalJson({ b: 1, a: [{ d: undefined, c: "x" }] })).toBe('{"a":[{"c":"x"}],"b":1}');
  });
});

describe("gatewaySettings", () => {
  const minimal = parseConfig({
    accountId,
    gateways: [{ id: "plain", routes: { r: [{ provider: "openai", model: "m" }] } }],
    keys: { providers: ["openai"] },
  }).gateways[0];

  it("sends explicit off values for what a gateway leaves unset", () => {
    expect(gatewaySettings(minimal!)).toEqual({
      aiGatewayId: "plain",
      authentication: false,
      cacheTtl: 0,
      cacheInvalidateOnUpdate: false,
      rateLimitingLimit: 0,
      rateLimitingInterval: 0,
      rateLimitingTechnique: "fixed",
      collectLogs: true,
      logManagementStrategy: "STOP_INSERTING",
      spendLimits: { enabled: false },
    });
    expect(ignoredGatewayFields(minimal!)).toEqual(
      expect.arrayContaining([
        "retryMaxAttempts",
        "retryDelay",
        "retryBackoff",
        "logManagement",
        "storeId",
      ]),
    );
  });

  it("gives every spend limit rule its own id, so rules never share the provider's default", () => {
    const gateway = parseConfig({
      accountId,
      gateways: [
        {
          id: "budgeted",
          spendLimits: [
            { limit: 5, windowSeconds: 3600, providers: ["openai"], models: ["gpt-4o"] },
            { limit: 50, windowSeconds: 86400, technique: "fixed" },
          ],
          routes: { r: [{ provider: "openai", model: "m" }] },
        },
      ],
      keys: { providers: ["openai"] },
    }).gateways[0];

    expect(gatewaySettings(gateway!).spendLimits).toEqual({
      enabled: true,
      rules: [
        {
          id: "rule-0",
          enabled: true,
          limit: 5,
          limitType: "cost",
          window: 3600,
          technique: "sliding",
          aiGatewayProvider: { mode: "filter", values: ["openai"] },
          model: { mode: "filter", values: ["gpt-4o"] },
        },
        {
          id: "rule-1",
          enabled: true,
          limit: 50,
          limitType: "cost",
          window: 86400,
          technique: "fixed",
        },
      ],
    });
  });
});

describe("readWranglerSettings", () => {
  it("reads JSONC: comments and trailing commas outside strings", () => {
    const directory = mkdtempSync(path.join(tmpdir(), "stepwise-wrangler-"));
    const file = path.join(directory, "wrangler.jsonc");
    writeFileSync(
      file,
      `{
  // the runtime
  "compatibility_date": "2026-04-01", /* pinned */
  "compatibility_flags": ["nodejs_compat",],
  "vars": { "URL": "https://x.test/a//b", "NOTE": "a /* b */ c,}" },
  "analytics_engine_datasets": [{ "binding": "EVENTS", "dataset": "events_v2" },],
}`,
    );

    const settings = readWranglerSettings(file);

    expect(settings).toMatchObject({
      compatibilityDate: "2026-04-01",
      compatibilityFlags: ["nodejs_compat"],
      eventsDataset: "events_v2",
    });
    expect(settings.raw.vars).toEqual({ URL: "https://x.test/a//b", NOTE: "a /* b */ c,}" });
    expect(stripJsonComments('{"a": "\\"//"}')).toBe('{"a": "\\"//"}');
    expect(() => readWranglerSettings(path.join(directory, "missing.jsonc"))).toThrow(
      /the Worker's compatibility date comes from it/,
    );
  });
});
