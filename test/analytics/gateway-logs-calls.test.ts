import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildReport } from "../../src/analytics/report.ts";
import {
  type GatewayLog,
  gatewayLogsSource,
  type LogsProgress,
} from "../../src/analytics/sources/gateway-logs.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const apiToken = "test-token-not-a-secret";
const base = "https://api.cloudflare.com/client/v4";
const t0 = Date.parse("2026-05-01T00:00:00Z");

const server = setupServer();
beforeAll(() =>
  server.listen({
    onUnhandledRequest: (request, print) => {
      if (!request.url.startsWith("data:")) print.error();
    },
  }),
);
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function record(index: number, overrides: Partial<GatewayLog> = {}): GatewayLog {
  return {
    id: `01JREC${String(index).padStart(20, "0")}`,
    created_at: new Date(t0 + index * 1000).toISOString(),
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    duration: 100,
    success: true,
    cached: false,
    status_code: 200,
    tokens_in: 10,
    tokens_out: 5,
    cost: 0.001,
    step: 0,
    metadata: JSON.stringify({ route: "default", plan: "pro" }),
    event_id: `call-${index}`,
    ...overrides,
  };
}

/**
 * Cloudflare's list endpoint over a mutable store: `created_at` filters, ascending order, page
 * numbers. `hooks.beforePage` may change the store (the gateway deleting its oldest logs) or
 * answer an error.
 */
function serve(
  store: GatewayLog[],
  hooks: { beforePage?: (request: number) => Response | undefined } = {},
) {
  const requests: URL[] = [];
  server.use(
    http.get(`${base}/accounts/:account/ai-gateway/gateways/:gateway/logs`, ({ request }) => {
      const url = new URL(request.url);
      requests.push(url);
      const refusal = hooks.beforePage?.(requests.length);
      if (refusal) return refusal;
      const keys = url.searchParams.getAll("filters.key");
      const operators = url.searchParams.getAll("filters.operator");
      const values = url.searchParams.getAll("filters.value");
      const matching = store.filter((log) =>
        keys.every((key, index) => {
          const time = Date.parse(log.created_at);
          const bound = Date.parse(values[index] ?? "");
          return key !== "created_at" || (operators[index] === "gt" ? time > bound : time < bound);
        }),
      );
      const page = Number(url.searchParams.get("page"));
      const perPage = Number(url.searchParams.get("per_page"));
      const result = matching.slice((page - 1) * perPage, page * perPage);
      return HttpResponse.json({
        success: true,
        errors: [],
        messages: [],
        result,
        result_info: { page, per_page: perPage, count: result.length },
      });
    }),
  );
  return requests;
}

const options = { accountId, gatewayId: "chat-prod", apiToken, now: () => t0 + 86_400_000 };

describe("gateway logs read as calls", () => {
  it("joins a call's records by event id: a fallback is one call served by step 1", async () => {
    serve([
      record(0, { event_id: "a", success: false, status_code: 503, step: 0, tokens_in: null }),
      record(1, {
        event_id: "a",
        step: 1,
        provider: "openai",
        model: "gpt-4o-mini",
        duration: 180,
      }),
      record(2, { event_id: "b" }),
      record(3, { event_id: "c", success: false, status_code: 503, step: 0 }),
      record(4, { event_id: "c", success: false, status_code: 502, step: 1, provider: "openai" }),
      record(5, { event_id: undefined, request_id: "r", cached: true }),
    ]);
    const events = [];
    for await (const event of gatewayLogsSource(options).events()) events.push(event);
    // The gateway fell back within one request: one attempt of the client's.
    expect(events.map((event) => [event.id, event.step, event.ok, event.attempts])).toEqual([
      ["a", 1, true, 1],
      ["b", 0, true, 1],
      ["c", null, false, 1],
      ["r", 0, true, 1],
    ]);
    // Tokens and cost of the answer kept; what the failed step cost is reported apart.
    expect(events[0]).toMatchObject({
      provider: "openai",
      latencyMs: 180,
      tokensIn: 10,
      cost: 0.001,
      failedAttemptsCost: 0.001,
      metadata: { route: "default", plan: "pro" },
      failedSteps: [
        {
          step: 0,
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          status: 503,
          errorCode: "http_503",
          at: "request",
        },
      ],
    });
    expect(events[2]).toMatchObject({ status: 502, errorCode: "http_502", provider: "openai" });
    expect(events[3]?.cacheStatus).toBe("HIT");

    const report = await buildReport(gatewayLogsSource(options), { dimensions: ["route"] });
    expect(report.totals).toMatchObject({ calls: 4, fallbacks: 1, answered: 3 });
    expect(report.totals.steps).toEqual({ "0": 2, "1": 1, none: 1 });
  });

  it("keeps reading from its cursor when the gateway deletes its oldest logs mid-pull", async () => {
    const store = Array.from({ length: 30 }, (_, index) => record(index));
    serve(store, {
      beforePage: (request) => {
        // DELETE_OLDEST: after the first page, ten old records are gone; page numbers would
        // now skip ten unread ones.
        if (request === 2) store.splice(0, 10);
        return undefined;
      },
    });
    const ids: string[] = [];
    for await (const event of gatewayLogsSource({ ...options, perPage: 10 }).events()) {
      ids.push(event.id);
    }
    expect(ids).toEqual(Array.from({ length: 30 }, (_, index) => `call-${index}`));
  });

  it("asks a failed page again from the same cursor, and can resume a stopped pull", async () => {
    const store = Array.from({ length: 25 }, (_, index) => record(index));
    const waits: number[] = [];
    const requests = serve(store, {
      beforePage: (request) =>
        request === 2
          ? HttpResponse.json({ success: false, errors: [] }, { status: 500 })
          : undefined,
    });
    const progress: LogsProgress[] = [];
    const ids: string[] = [];
    const source = gatewayLogsSource({
      ...options,
      perPage: 10,
      maxRetries: 0,
      sleep: async (ms) => {
        waits.push(ms);
      },
      onProgress: (step) => progress.push(step),
    });
    for await (const event of source.events()) ids.push(event.id);
    expect(ids).toHaveLength(25);
    expect(new Set(ids).size).toBe(25);
    expect(waits).toEqual([1000]);
    expect(requests[1]?.search).toBe(requests[2]?.search);
    expect(progress.map((step) => [step.pages, step.records])).toEqual([
      [1, 10],
      [2, 19],
      [3, 25],
    ]);

    // A pull stopped after its first page continues from the cursor it reported.
    serve(store, {
      beforePage: (request) =>
        request === 2
          ? HttpResponse.json({ success: false, errors: [] }, { status: 500 })
          : undefined,
    });
    const first: string[] = [];
    let cursor: LogsProgress["cursor"] = null;
    const stopped = gatewayLogsSource({
      ...options,
      perPage: 10,
      maxRetries: 0,
      pageRetries: 0,
      onProgress: (step) => {
        cursor = step.cursor;
      },
    });
    await expect(
      (async () => {
        for await (const event of stopped.events()) first.push(event.id);
      })(),
    ).rejects.toThrow(/HTTP 500/);
    expect(cursor).toMatchObject({ time: t0 + 9_000 });
    serve(store);
    const rest: string[] = [];
    const resumed = gatewayLogsSource({ ...options, perPage: 10, resumeFrom: cursor ?? undefined });
    for await (const event of resumed.events()) rest.push(event.id);
    // The resumed pull reads only what came after the cursor.
    expect(rest).toEqual(Array.from({ length: 15 }, (_, index) => `call-${index + 10}`));
  });

  it("hands calls on while paging, holding only the calls still in flight", async () => {
    const store = Array.from({ length: 400 }, (_, index) =>
      record(index, { event_id: `call-${Math.floor(index / 2)}` }),
    );
    const requests = serve(store);
    const requestsAtEachCall: number[] = [];
    const source = gatewayLogsSource({ ...options, perPage: 50, callHorizonMs: 5_000 });
    for await (const _event of source.events()) requestsAtEachCall.push(requests.length);
    expect(requestsAtEachCall).toHaveLength(200);
    // The first calls came out after the first page, long before the last one was asked for.
    expect(requestsAtEachCall[0]).toBe(1);
    expect(requests.length).toBeGreaterThanOrEqual(8);
  });
});
