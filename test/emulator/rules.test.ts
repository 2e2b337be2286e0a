import { describe, expect, it } from "vitest";
import { evaluateCondition } from "../../src/emulator/dynamic-routes/conditions.ts";
import { GatewayRequestError } from "../../src/emulator/errors.ts";
import { createIdGenerator, createUlid, createUuidV7 } from "../../src/emulator/ids.ts";
import { readDirectives } from "../../src/emulator/request/directives.ts";
import { modelOf } from "../../src/emulator/request/model-name.ts";
import { readLogFilters } from "../../src/emulator/rest/log-filters.ts";
import { normaliseEndpoint } from "../../src/emulator/transport/upstreams.ts";

describe("conditions", () => {
  const context = {
    metadata: { plan: "free", tier: 2 },
    body: { model: "dynamic/x", temperature: 0.2 },
    headers: { "x-team": "ml" },
  };
  it.each([
    [{ "metadata.plan": { $eq: "free" } }, true],
    [{ "metadata.plan": "free" }, true],
    [{ "metadata.plan": { $ne: "free" } }, false],
    [{ "metadata.plan": { $in: ["free", "trial"] } }, true],
    [{ "metadata.plan": { $nin: ["free"] } }, false],
    [{ "metadata.tier": { $gte: 2, $lt: 3 } }, true],
    [{ "metadata.missing": { $exists: false } }, true],
    [{ "body.temperature": { $lt: 0.5 } }, true],
    [{ "headers.X-Team": "ml" }, true],
    [{ $or: [{ "metadata.plan": "pro" }, { "metadata.tier": 2 }] }, true],
    [{ $and: [{ "metadata.plan": "pro" }, { "metadata.tier": 2 }] }, false],
    [{ $not: { "metadata.plan": "pro" } }, true],
    ['{"metadata.plan":{"$eq":"free"}}', true],
    [{ plan: "free" }, true],
  ])("evaluates %j to %s", (condition, expected) => {
    expect(evaluateCondition(condition, context)).toBe(expected);
  });

  it("rejects unknown operators and malformed conditions", () => {
    expect(() => evaluateCondition({ "metadata.plan": { $regex: "f" } }, context)).toThrow(
      GatewayRequestError,
    );
    expect(() => evaluateCondition("{nope", context)).toThrow(GatewayRequestError);
  });
});

describe("request reading", () => {
  it("reads cf-aig-* headers and drops metadata entries past the fifth", () => {
    const headers: Record<string, string> = {
      "cf-aig-cache-ttl": "3600",
      "cf-skip-cache": "TRUE",
      "cf-aig-backoff": "Exponential",
      "cf-aig-metadata": '{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}',
    };
    const directives = readDirectives((name) => headers[name]);
    expect(directives).toMatchObject({ cacheTtl: 3600, skipCache: true, backoff: "exponential" });
    expect(Object.keys(directives.metadata!)).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("finds the model in the body or the endpoint", () => {
    expect(modelOf("openai", "chat/completions", { model: "gpt-4o" })).toBe("gpt-4o");
    expect(modelOf("workers-ai", "@cf/meta/llama-3.1-8b-instruct", {})).toBe(
      "@cf/meta/llama-3.1-8b-instruct",
    );
    expect(modelOf("google-ai-studio", "v1beta/models/gemini-2.5-flash:generateContent", {})).toBe(
      "gemini-2.5-flash",
    );
  });

  it("normalises endpoints and refuses escapes", () => {
    expect(normaliseEndpoint("openai", "/v1/chat/completions")).toBe("chat/completions");
    expect(normaliseEndpoint("anthropic", "v1/messages")).toBe("v1/messages");
    expect(() => normaliseEndpoint("openai", "a/../../etc")).toThrow(GatewayRequestError);
  });

  it("reads log filters the way the cloudflare SDK writes them", () => {
    const query = new URLSearchParams(
      "filters.key=provider&filters.operator=eq&filters.value=openai&filters.value=groq&filters.key=success&filters.operator=eq&filters.value=true",
    );
    expect(readLogFilters(query)).toEqual([
      { key: "provider", operator: "eq", value: ["openai", "groq"] },
      { key: "success", operator: "eq", value: ["true"] },
    ]);
    expect(
      readLogFilters(
        new URLSearchParams(
          "filters[0][key]=model&filters[0][operator]=contains&filters[0][value][]=4o",
        ),
      ),
    ).toEqual([{ key: "model", operator: "contains", value: ["4o"] }]);
  });

  it("makes lowercase UUIDv7 ids, as Cloudflare's changelog of 2026-10-08 describes", () => {
    // "New AI Gateway log IDs and request IDs are lowercase UUIDv7, such as
    // 019a7b3e-5f2c-7c41-9d3e-2b8f6a1c4e07." RFC 9562's own example, byte for byte:
    const random = Uint8Array.from([0x0c, 0xc3, 0x18, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f]);
    expect(createUuidV7(0x017f22e279b0, random)).toBe("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    const pattern = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const ids = Array.from({ length: 300 }, () => createUuidV7(1_760_000_000_000));
    for (const id of ids) expect(id).toMatch(pattern);
    expect(new Set(ids).size).toBe(ids.length);
    // The time leads, so ids of later milliseconds sort after earlier ones.
    let time = 1_760_000_000_000;
    const generate = createIdGenerator(() => time++);
    const sorted = Array.from({ length: 50 }, generate);
    expect([...sorted].sort()).toEqual(sorted);
  });

  it("makes sortable 26-character ULIDs", () => {
    const early = createUlid(1_700_000_000_000, new Uint8Array(16));
    const late = createUlid(1_700_000_000_001, new Uint8Array(16).fill(255));
    expect(early).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(early < late).toBe(true);
  });
});
