/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * The cron trigger writes the daily summary point (src/worker/daily-summary.ts) in workerd: at
 * the 01:00 UTC run it asks the SQL API for yesterday per route and writes one point per route.
 * The figures themselves are checked against the SQL API fake in test/analytics/daily-summary.
 */
import {
  createExecutionContext,
  createScheduledController,
  reset,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { AnalyticsDataPoint, WorkerEnv } from "../../src/worker/bindings.ts";
import { accountId, createHarness, defaultGateway, testConfig } from "./harness.ts";

afterEach(async () => {
  await reset();
});

describe("scheduled: the daily summary point", () => {
  it("is written by the cron run at 01:00 UTC, from one SQL API query", async () => {
    const points: AnalyticsDataPoint[] = [];
    const overrides: Partial<WorkerEnv> = {
      DAILY_SUMMARY: { writeDataPoint: (point) => void points.push(point) },
      ANALYTICS_API_TOKEN: "analytics-read",
      // The summary asks Cloudflare's API, wherever CLOUDFLARE_API_URL says it is.
      CLOUDFLARE_API_URL: "https://sql.test/client/v4",
      // The dataset EVENTS writes to, as Pulumi and wrangler.jsonc bind it.
      EVENTS_DATASET: "stepwise_events_eu",
    };
    const harness = createHarness({
      config: testConfig({ worker: { healthProbe: { enabled: false } } }),
      startAt: Date.parse("2026-05-02T01:00:00Z"),
      envOverrides: overrides,
      gateway: (call, validKeys) =>
        call.url.startsWith("https://sql.test/")
          ? new Response(
              '{"gateway":"chat-prod","route":"default","calls":"1200","ok":"1190","answered":"1195","fallbacks":"60","cost":1.5,"p95":830}\n',
            )
          : defaultGateway(call, validKeys),
    });
    const execution = createExecutionContext();
    await harness.worker.scheduled(
      createScheduledController({ cron: "*/15 * * * *", scheduledTime: harness.now() }),
      harness.env,
      execution,
    );
    await waitOnExecutionContext(execution);
    const query = harness.gatewayCalls.find((call) => call.url.startsWith("https://sql.test/"));
    expect(query?.url).toBe(
      `https://sql.test/client/v4/accounts/${accountId}/analytics_engine/sql`,
    );
    expect(query?.headers.authorization).toBe("Bearer analytics-read");
    expect(query?.body).toContain("toDateTime(1777593600)");
    expect(query?.body).toContain("FROM stepwise_events_eu");
    expect(points).toEqual([
      {
        indexes: ["chat-prod"],
        blobs: ["2026-05-01", "chat-prod", "default"],
        doubles: [1200, 1190, 1195, 60, 1.5, 830, 1],
      },
    ]);
    expect(harness.logs).toContain(
      "info: stepwise worker: daily summary 2026-05-01 chat-prod/default: 1200 calls, availability 99.58%, fallback 5.00%",
    );
  });
});
