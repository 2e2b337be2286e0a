/**
 * The HTML report in a real headless Chromium, on two routes whose step 0 differ (`default`:
 * anthropic then openai; `cheap`: openai then anthropic): each provider/model keeps one colour on
 * the whole page, so route `cheap`'s step 0 is drawn in openai's colour, not in the colour of
 * `default`'s step 0; the cost chart's bars add up to the report's cost; the steps table shows the
 * failures by reason (a cell and a coloured segment per reason); each chart has one time axis
 * title and round ticks. A screenshot is saved to a temporary directory for a person to look at.
 * Skips only on a developer machine without /usr/bin/chromium; in CI it runs and fails instead.
 */
import { existsSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pricingOf } from "../../../src/analytics/explain.ts";
import { reasonColors } from "../../../src/analytics/render/explain-html.ts";
import { renderHtml } from "../../../src/analytics/render/html.ts";
import { buildReport, type Report } from "../../../src/analytics/report.ts";
import type { CallEvent, FailedStep } from "../../../src/client/event.ts";

const chromiumPath = "/usr/bin/chromium";
const skip = !existsSync(chromiumPath) && !process.env.CI;

const start = Date.parse("2026-05-01T00:00:00Z");
const anthropic = { provider: "anthropic", model: "claude-sonnet-4-5" };
const openai = { provider: "openai", model: "gpt-4o-mini" };

function call(index: number, route: string, overrides: Partial<CallEvent>): CallEvent {
  return {
    time: new Date(start + index * 60_000).toISOString(),
    id: `${route}-${index}`,
    gateway: "chat-prod",
    route,
    mode: "universal",
    step: 0,
    ...anthropic,
    status: 200,
    ok: true,
    cacheStatus: null,
    latencyMs: 100,
    tokensIn: 1_000,
    tokensOut: 100,
    cost: 0.0045,
    errorCode: null,
    logId: null,
    attempts: 1,
    streamed: false,
    ...overrides,
  };
}

const failure = (step: number, model: typeof anthropic, overrides: Partial<FailedStep>) => ({
  step,
  ...model,
  status: null,
  errorCode: null,
  at: "request" as const,
  ...overrides,
});

/** Six hours: `default` falls back to openai for an hour with 429s and stream breaks. */
const events: CallEvent[] = [];
for (let index = 0; index < 360; index += 1) {
  const outage = index >= 120 && index < 180;
  events.push(
    outage
      ? call(index, "default", {
          step: 1,
          ...openai,
          cost: 0.00021,
          failedSteps: [
            failure(
              0,
              anthropic,
              index % 2 === 0
                ? { status: 429, errorCode: "rate_limited" }
                : { status: 200, errorCode: "incomplete_stream", at: "mid-stream" },
            ),
          ],
        })
      : call(index, "default", {}),
  );
  if (index % 3 === 0) {
    const timedOut = index % 30 === 0;
    events.push(
      call(index, "cheap", {
        id: `cheap-${index}`,
        ...(timedOut
          ? { step: 1, ...anthropic, failedSteps: [failure(0, openai, { errorCode: "timeout" })] }
          : { step: 0, ...openai, cost: 0.00021 }),
      }),
    );
  }
}

const config = {
  models: {
    "anthropic/claude-sonnet-4-5": { input: 3, output: 15 },
    "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
  },
  gateways: [
    {
      id: "chat-prod",
      routes: {
        default: { steps: [anthropic, openai] },
        cheap: { steps: [openai, anthropic] },
      },
    },
  ],
};

describe.skipIf(skip)("the report's explanation in headless Chromium", () => {
  let browser: Browser;
  let directory: string;
  let report: Report;
  let file: string;

  beforeAll(async () => {
    report = await buildReport(
      {
        kind: "events",
        name: "events.jsonl",
        stats: { records: events.length, malformed: 0, malformedSamples: [] },
        async *events() {
          yield* events;
        },
      },
      { dimensions: ["metadata.plan"], pricing: pricingOf(config), now: () => start },
    );
    directory = await mkdtemp(path.join(tmpdir(), "stepwise-explain-html-"));
    file = path.join(directory, "report.html");
    await writeFile(file, renderHtml(report));
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ["--no-sandbox", "--headless", "--disable-gpu", "--no-first-run"],
    });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it("colours each provider/model alike in every route, charts cost over time and shows failure reasons", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(file).href);

    // Per-route colours: one colour per provider/model on the whole page.
    const bars = await page.$$eval("svg.route-chart rect.route-bar", (rects) =>
      rects.map((rect) => ({
        route: rect.getAttribute("data-route"),
        served: rect.getAttribute("data-served"),
        fill: rect.getAttribute("fill"),
      })),
    );
    const fills = new Map<string, Set<string>>();
    for (const bar of bars) {
      const set = fills.get(bar.served ?? "") ?? new Set<string>();
      set.add(bar.fill ?? "");
      fills.set(bar.served ?? "", set);
    }
    expect([...fills.keys()].sort()).toEqual(["anthropic/claude-sonnet-4-5", "openai/gpt-4o-mini"]);
    const anthropicFill = [...(fills.get("anthropic/claude-sonnet-4-5") ?? [])];
    const openaiFill = [...(fills.get("openai/gpt-4o-mini") ?? [])];
    expect(anthropicFill).toHaveLength(1);
    expect(openaiFill).toHaveLength(1);
    expect(anthropicFill[0]).not.toBe(openaiFill[0]);
    // Step 0 of `cheap` (openai) is drawn in openai's colour, as step 1 of `default` is.
    expect(
      new Set(
        bars
          .filter((bar) => bar.route === "cheap" && bar.served === "openai/gpt-4o-mini")
          .map((bar) => bar.fill),
      ),
    ).toEqual(new Set(openaiFill));
    expect(
      new Set(
        bars
          .filter((bar) => bar.route === "default" && bar.served === "openai/gpt-4o-mini")
          .map((bar) => bar.fill),
      ),
    ).toEqual(new Set(openaiFill));
    const legendSwatch = await page
      .locator('figure[data-route="cheap"] .legend-item[data-served="openai/gpt-4o-mini"] .swatch')
      .evaluate((element) => getComputedStyle(element).backgroundColor);
    expect(legendSwatch).toBe(hexToRgb(openaiFill[0] ?? ""));

    // Cost over time: the bars add up to the report's cost.
    const costs = await page.$$eval("#chart rect.cost-bar", (rects) =>
      rects.map((rect) => Number(rect.getAttribute("data-cost"))),
    );
    expect(costs.length).toBeGreaterThan(10);
    expect(costs.reduce((sum, cost) => sum + cost, 0)).toBeCloseTo(report.totals.cost, 10);
    expect(await page.locator("#chart .panel-title").allTextContents()).toContain(
      "Cost per bucket (USD)",
    );

    // Readable time axes: one axis title per chart and at most 8 round ticks.
    for (const chart of await page.locator("svg.chart").all()) {
      expect(await chart.locator(".axis-title").allTextContents()).toEqual(["time (UTC)"]);
      const ticks = await chart.locator(".time-tick").allTextContents();
      expect(ticks.length).toBeGreaterThan(2);
      expect(ticks.length).toBeLessThanOrEqual(8);
      expect(ticks[0]).toMatch(/^05-01 \d\d:\d\d$/);
      for (const tick of ticks.slice(1)) expect(tick).toMatch(/^\d\d:(00|30)$/);
    }

    // Failure reasons per step, kept under --by metadata.plan.
    const primaryRow = page.locator('#steps tr[data-route="default"][data-step="0"]');
    const reasonCells = await primaryRow
      .locator("td[data-reason]")
      .evaluateAll((cells) =>
        Object.fromEntries(
          cells.map((cell) => [cell.getAttribute("data-reason"), cell.getAttribute("data-value")]),
        ),
      );
    expect(reasonCells).toMatchObject({ rate_limited: "30", stream_break: "30", timeout: "0" });
    const segments = await primaryRow
      .locator("rect.reason-segment")
      .evaluateAll((rects) =>
        rects.map((rect) => [rect.getAttribute("data-reason"), rect.getAttribute("fill")]),
      );
    expect(segments).toEqual([
      ["rate_limited", reasonColors.rate_limited],
      ["stream_break", reasonColors.stream_break],
    ]);
    const cheapRow = page.locator('#steps tr[data-route="cheap"][data-step="0"]');
    expect(await cheapRow.locator('td[data-reason="timeout"]').textContent()).toBe("12");
    expect(await page.locator("#reason-legend .legend-item").allInnerTexts()).toEqual([
      "429 rate limited",
      "timeout",
      "stream break",
    ]);

    // The cost of fallback beside the primary.
    const fallback = page.locator('#fallback-cost tr[data-route="default"]');
    expect(await fallback.locator('td[data-figure="fallbackCalls"]').textContent()).toBe("60");
    expect(
      Number(await fallback.locator('td[data-figure="costOnPrimary"]').getAttribute("data-value")),
    ).toBeCloseTo((60 * (1_000 * 3 + 100 * 15)) / 1e6, 12);

    const shot = path.join(directory, "explain.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      1280,
    );
    await page.close();
  });
});

function hexToRgb(hex: string): string {
  const value = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(value >> 16) & 255}, ${(value >> 8) & 255}, ${value & 255})`;
}
