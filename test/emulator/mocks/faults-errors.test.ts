import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  canonicalAnswer,
  type FaultRule,
  type MockProviders,
  startMockProviders,
} from "../../../src/emulator/mocks/index.ts";
import { getProvider, ProviderResponseError } from "../../../src/providers/index.ts";
import { chat, formatCases, readError } from "./helpers.ts";

const providerTypes: Record<string, Record<string, string>> = {
  openai: {
    rate: "rate_limit_exceeded",
    server: "server_error",
    unavailable: "service_unavailable",
    overloaded: "overloaded",
    context: "context_length_exceeded",
    filter: "content_filter",
  },
  anthropic: {
    rate: "rate_limit_error",
    server: "api_error",
    unavailable: "api_error",
    overloaded: "overloaded_error",
    context: "invalid_request_error",
    filter: "invalid_request_error",
  },
  "workers-ai": {
    rate: "3040",
    server: "3043",
    unavailable: "3040",
    overloaded: "3040",
    context: "5021",
    filter: "3030",
  },
  "google-ai-studio": {
    rate: "RESOURCE_EXHAUSTED",
    server: "INTERNAL",
    unavailable: "UNAVAILABLE",
    overloaded: "UNAVAILABLE",
    context: "INVALID_ARGUMENT",
    filter: "INVALID_ARGUMENT",
  },
};

let mocks: MockProviders;
let clock = 1_800_000_000_000;

beforeAll(async () => {
  mocks = await startMockProviders({
    providers: formatCases.map((c) => c.provider),
    now: () => clock,
  });
});
afterAll(() => mocks.close());
beforeEach(() => {
  mocks.clearAttempts();
  mocks.setFaults({ rules: [] });
});

describe.each(formatCases)("$provider error faults", ({ provider, model }) => {
  const types = providerTypes[provider]!;
  const faulted = (kind: FaultRule["kind"], extra: Partial<FaultRule> = {}) =>
    mocks.setFaults({ rules: [{ provider, kind, ...extra }] });

  it("rate-limit: 429 with Retry-After", async () => {
    faulted("rate-limit", { retryAfterSeconds: 7 });
    const response = await chat(mocks, provider, { model });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(await readError(provider, response)).toMatchObject({ status: 429, type: types.rate });
    expect(mocks.attempts[0]).toMatchObject({ status: 429, fault: "rate-limit", model });
  });

  it("rate-limit: Retry-After defaults to 1 second; rate-limit-no-retry-after sends none", async () => {
    faulted("rate-limit");
    expect((await chat(mocks, provider, { model })).headers.get("retry-after")).toBe("1");
    faulted("rate-limit-no-retry-after");
    const response = await chat(mocks, provider, { model });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBeNull();
    expect((await readError(provider, response)).type).toBe(types.rate);
  });

  it("server-error-once: 500 on the first attempt, then healthy", async () => {
    faulted("server-error-once");
    const first = await chat(mocks, provider, { model });
    expect(first.status).toBe(500);
    expect((await readError(provider, first)).type).toBe(types.server);
    expect((await chat(mocks, provider, { model })).status).toBe(200);
    expect(mocks.attempts.map((attempt) => [attempt.status, attempt.fault])).toEqual([
      [500, "server-error-once"],
      [200, null],
    ]);
  });

  it("unavailable: 503 on every attempt while active", async () => {
    faulted("unavailable");
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await chat(mocks, provider, { model });
      expect(response.status).toBe(503);
      expect((await readError(provider, response)).type).toBe(types.unavailable);
    }
    expect(mocks.attempts).toHaveLength(3);
  });

  it("overloaded: 529", async () => {
    faulted("overloaded");
    const response = await chat(mocks, provider, { model });
    expect(response.status).toBe(529);
    expect((await readError(provider, response)).type).toBe(types.overloaded);
  });

  it("context-length and content-filter: 400 in the provider's format", async () => {
    faulted("context-length");
    const tooLong = await chat(mocks, provider, { model });
    expect(tooLong.status).toBe(400);
    const contextError = await readError(provider, tooLong);
    expect(contextError.type).toBe(types.context);
    expect(contextError.message).toMatch(/context length/);
    faulted("content-filter");
    const filtered = await chat(mocks, provider, { model });
    expect(filtered.status).toBe(400);
    const filterError = await readError(provider, filtered);
    expect(filterError.type).toBe(types.filter);
    expect(filterError.message).toMatch(/content filter/);
  });

  it("empty-body and invalid-body: a 200 the adapter cannot read", async () => {
    const adapter = getProvider(provider);
    faulted("empty-body");
    const empty = await chat(mocks, provider, { model });
    expect(empty.status).toBe(200);
    const emptyText = await empty.text();
    expect(emptyText).toBe("");
    expect(() => adapter.parseResponse(emptyText, model)).toThrow(/empty body/);
    faulted("invalid-body");
    const invalid = await chat(mocks, provider, { model, stream: true });
    expect(invalid.status).toBe(200);
    const invalidText = await invalid.text();
    expect(() => adapter.parseResponse(invalidText, model)).toThrow(ProviderResponseError);
  });

  it("down: 503 inside the window by the injected clock, healthy before and after", async () => {
    const start = clock;
    faulted("down", { fromMs: start + 1_000, untilMs: start + 5_000 });
    const statuses: number[] = [];
    for (const offset of [0, 1_000, 4_999, 5_000]) {
      clock = start + offset;
      statuses.push((await chat(mocks, provider, { model })).status);
    }
    clock = start;
    expect(statuses).toEqual([200, 503, 503, 200]);
    expect(mocks.attempts.map((attempt) => attempt.fault)).toEqual([null, "down", "down", null]);
  });
});

describe("matching", () => {
  it("a rule with a model applies only to that model", async () => {
    mocks.setFaults({ rules: [{ provider: "openai", model: "gpt-4o", kind: "unavailable" }] });
    expect((await chat(mocks, "openai", { model: "gpt-4o" })).status).toBe(503);
    expect((await chat(mocks, "openai", { model: "gpt-4o-mini" })).status).toBe(200);
    expect((await chat(mocks, "anthropic", { model: "gpt-4o" })).status).toBe(200);
  });

  it("a rule without a provider applies to every provider; the first active rule wins", async () => {
    mocks.setFaults({
      rules: [{ provider: "anthropic", kind: "overloaded", count: 1 }, { kind: "rate-limit" }],
    });
    expect((await chat(mocks, "anthropic", { model: "claude-haiku-4-5" })).status).toBe(529);
    expect((await chat(mocks, "anthropic", { model: "claude-haiku-4-5" })).status).toBe(429);
    expect((await chat(mocks, "google-ai-studio", { model: "gemini-2.5-pro" })).status).toBe(429);
  });

  it("count: three 503s, then healthy (the attempt log shows all four)", async () => {
    mocks.setFaults({ rules: [{ provider: "openai", kind: "unavailable", count: 3 }] });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      statuses.push((await chat(mocks, "openai", { model: "gpt-4o" })).status);
    }
    expect(statuses).toEqual([503, 503, 503, 200]);
    expect(mocks.attempts.map((attempt) => attempt.status)).toEqual(statuses);
  });

  it("setFaults resets rule counts", async () => {
    mocks.setFaults({ rules: [{ kind: "server-error-once" }] });
    expect((await chat(mocks, "openai", { model: "gpt-4o" })).status).toBe(500);
    mocks.setFaults({ rules: [{ kind: "server-error-once" }] });
    expect((await chat(mocks, "openai", { model: "gpt-4o" })).status).toBe(500);
    expect((await chat(mocks, "openai", { model: "gpt-4o" })).status).toBe(200);
  });

  it("setFaults rejects an invalid schedule and keeps the old one", async () => {
    mocks.setFaults({ rules: [{ kind: "unavailable" }] });
    expect(() => mocks.setFaults({ rules: [{ kind: "unavailable", rate: 2 }] })).toThrow(
      /rules\[0\]\.rate/,
    );
    expect((await chat(mocks, "openai", { model: "gpt-4o" })).status).toBe(503);
  });

  it("a healthy answer after faults is still the canonical one", async () => {
    mocks.setFaults({ rules: [{ kind: "unavailable", count: 1 }] });
    await chat(mocks, "openai", { model: "gpt-4o" });
    const result = getProvider("openai").parseResponse(
      await (await chat(mocks, "openai", { model: "gpt-4o" })).text(),
    );
    expect(result.text).toBe(canonicalAnswer("openai", "gpt-4o"));
  });
});
