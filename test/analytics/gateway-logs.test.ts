import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildReport } from "../../src/analytics/report.ts";
import {
  type GatewayLog,
  gatewayLogsSource,
  logToEvent,
} from "../../src/analytics/sources/gateway-logs.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const apiToken = "test-token-not-a-secret";
const cloudflareBase = "https://api.cloudflare.com/client/v4";
const emulatorBase = "http://127.0.0.1:8787/client/v4";

/** Requests the handlers saw, for asserting what went out. */
const seen: Request[] = [];

const server = setupServer();
beforeAll(() =>
  server.listen({
    // The SDK may probe `fetch("data:,")`; let data: URLs through, fail on anything else.
    onUnhandledRequest: (request, print) => {
      if (request.url.startsWith("data:")) return;
      print.error();
    },
  }),
);
afterEach(() => {
  server.resetHandlers();
  seen.length = 0;
});
afterAll(() => server.close());

function log(index: number, overrides: Partial<GatewayLog> = {}): GatewayLog {
  return {
    id: `01JLOG${String(index).padStart(20, "0")}`,
    created_at: new Date(Date.parse("2026-05-01T00:00:00Z") + index * 60_000).toISOString(),
    provider: index % 4 === 3 ? "openai" : "anthropic",
    model: index % 4 === 3 ? "gpt-4o-mini" : "claude-sonnet-4-5",
    duration: 100 + index,
    success: index % 5 !== 4,
    cached: index % 6 === 0,
    status_code: index % 5 === 4 ? 503 : 200,
    tokens_in: 10 * index,
    tokens_out: index,
    cost: 0.001 * index,
    step: index % 5 === 4 ? undefined : index % 4 === 3 ? 1 : 0,
    metadata: JSON.stringify({ route: index % 2 === 0 ? "default" : "fast" }),
    ...overrides,
  };
}

/** Cloudflare's `created_at` `gt`/`lt` filters, as the SDK sends them (dotted, repeated). */
function matchesTimeFilters(record: unknown, query: URLSearchParams): boolean {
  const keys = query.getAll("filters.key");
  const operators = query.getAll("filters.operator");
  const values = query.getAll("filters.value");
  const time = Date.parse((record as { created_at?: string }).created_at ?? "");
  if (Number.isNaN(time)) return true;
  return keys.every((key, index) => {
    if (key !== "created_at") return true;
    const bound = Date.parse(values[index] ?? "");
    return operators[index] === "gt" ? time > bound : time < bound;
  });
}

/** Serves `logs` in Cloudflare's page envelope; an empty page ends the SDK's pagination. */
function serveLogs(base: string, logs: unknown[]) {
  server.use(
    http.get(
      `${base}/accounts/:account/ai-gateway/gateways/:gateway/logs`,
      ({ request, params }) => {
        seen.push(request.clone());
        const url = new URL(request.url);
        const page = Number(url.searchParams.get("page") ?? "1");
        const perPage = Number(url.searchParams.get("per_page") ?? "20");
        const matching = logs.filter((record) => matchesTimeFilters(record, url.searchParams));
        const result =
          params.account === accountId && params.gateway === "chat-prod"
            ? matching.slice((page - 1) * perPage, page * perPage)
            : [];
        return HttpResponse.json({
          success: true,
          errors: [],
          messages: [],
          result,
          result_info: { page, per_page: perPage, count: result.length, total_count: logs.length },
        });
      },
    ),
  );
}

describe("gateway logs through the cloudflare SDK", () => {
  it("pages through every log with the token, and maps each record to an event", async () => {
    const logs = Array.from({ length: 23 }, (_, index) => log(index));
    serveLogs(cloudflareBase, logs);
    const source = gatewayLogsSource({ accountId, gatewayId: "chat-prod", apiToken, perPage: 10 });
    const events = [];
    for await (const event of source.events()) events.push(event);

    expect(events).toEqual(logs.map((record) => logToEvent(record, "chat-prod")));
    // Three requests, each for the records from the last one read on (read again, and dropped
    // by id): 10 + 10 + 5 records; a short page ends the listing.
    expect(seen).toHaveLength(3);
    expect(seen.map((request) => decodeURIComponent(new URL(request.url).search))).toEqual([
      expect.not.stringContaining("gt"),
      expect.stringContaining(
        `gt&filters.value=${new Date(Date.parse(logs[9]!.created_at) - 1).toISOString()}`,
      ),
      expect.stringContaining(
        `gt&filters.value=${new Date(Date.parse(logs[18]!.created_at) - 1).toISOString()}`,
      ),
    ]);
    for (const request of seen) {
      expect(request.headers.get("authorization")).toBe(`Bearer ${apiToken}`);
      const url = new URL(request.url);
      expect(url.pathname).toBe(
        `/client/v4/accounts/${accountId}/ai-gateway/gateways/chat-prod/logs`,
      );
      expect(url.searchParams.get("per_page")).toBe("10");
      expect(url.searchParams.get("order_by")).toBe("created_at");
      expect(url.searchParams.get("order_by_direction")).toBe("asc");
    }
    expect(source.stats).toMatchObject({ records: 23, malformed: 0 });
  });

  it("maps step, status, cache, tokens, cost, route metadata and failures", () => {
    expect(logToEvent(log(3), "chat-prod")).toEqual({
      time: "2026-05-01T00:03:00.000Z",
      id: log(3).id,
      gateway: "chat-prod",
      route: "fast",
      mode: "universal",
      step: 1,
      provider: "openai",
      model: "gpt-4o-mini",
      status: 200,
      ok: true,
      cacheStatus: "MISS",
      latencyMs: 103,
      tokensIn: 30,
      tokensOut: 3,
      cost: 0.003,
      errorCode: null,
      logId: log(3).id,
      attempts: 1,
      streamed: false,
      metadata: { route: "fast" },
    });
    expect(logToEvent(log(4), "chat-prod")).toMatchObject({
      step: null,
      ok: false,
      status: 503,
      errorCode: "http_503",
    });
    expect(
      logToEvent(log(0, { metadata: undefined, step: undefined, status_code: undefined }), "g"),
    ).toMatchObject({
      route: "unknown",
      step: 0,
      status: 200,
      cacheStatus: "HIT",
    });
    expect(
      logToEvent(log(1, { metadata: "not json", response_content_type: "text/event-stream" }), "g"),
    ).toMatchObject({
      route: "unknown",
      streamed: true,
    });
  });

  it("works against any base URL (the emulator's REST subset) and sends the window as filters", async () => {
    const logs = [log(0), log(1), { id: "broken", created_at: "yesterday" }, log(2)];
    serveLogs(emulatorBase, logs);
    const since = Date.parse("2026-05-01T00:01:00Z");
    const until = Date.parse("2026-05-01T00:02:00Z");
    const report = await buildReport(
      gatewayLogsSource({
        accountId,
        gatewayId: "chat-prod",
        apiToken,
        baseURL: emulatorBase,
        window: { since, until },
      }),
      { window: { since, until }, dimensions: ["route", "step"] },
    );
    // The API is asked for the window only: log(1) and the malformed record come back.
    expect(report.counted).toBe(1);
    expect(report.outsideWindow).toBe(0);
    expect(report.source).toMatchObject({
      kind: "logs",
      name: "gateway logs chat-prod",
      records: 2,
      malformed: 1,
    });
    expect(report.source.malformedSamples[0]).toMatchObject({ line: 2 });
    const query = decodeURIComponent(new URL(seen[0]?.url ?? "").search);
    expect(query).toContain("2026-05-01T00:00:59.999Z");
    expect(query).toContain("2026-05-01T00:02:00.000Z");
    expect(query).toMatch(/filters.*created_at/);
  });

  it("turns an API refusal into a message with the fix, without the token", async () => {
    server.use(
      http.get(`${cloudflareBase}/accounts/:account/ai-gateway/gateways/:gateway/logs`, () =>
        HttpResponse.json(
          {
            success: false,
            errors: [{ code: 10000, message: "Authentication error" }],
            messages: [],
            result: null,
          },
          { status: 403 },
        ),
      ),
    );
    const source = gatewayLogsSource({
      accountId,
      gatewayId: "chat-prod",
      apiToken,
      maxRetries: 0,
      sleep: () => Promise.reject(new Error("a refusal is not retried")),
    });
    const reading = (async () => {
      for await (const _ of source.events()) {
        // drain
      }
    })();
    await expect(reading).rejects.toThrow(
      /HTTP 403 \(Authentication error\).*AI Gateway Read permission/,
    );
    await expect(reading).rejects.not.toThrow(new RegExp(apiToken));
  });
});
