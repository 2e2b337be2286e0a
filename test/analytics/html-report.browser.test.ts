/**
 * Opens the HTML report in a real headless Chromium and checks what a reader sees: the chart's
 * bars and availability points carry the right numbers and proportions, and the tables show the
 * plain recomputation of every figure. Skips only on a developer machine without
 * /usr/bin/chromium; in CI (env CI set) it runs and fails if Chromium is missing.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderHtml } from "../../src/analytics/render/html.ts";
import { buildReport, type Report } from "../../src/analytics/report.ts";
import type { EventSource } from "../../src/analytics/sources/types.ts";
import type { CallEvent } from "../../src/client/event.ts";
import { generateEvents } from "../../tools/scripts/generate-events.ts";
import { referenceFigures, referenceGroups } from "./reference.ts";

const chromiumPath = "/usr/bin/chromium";
const skip = !existsSync(chromiumPath) && !process.env.CI;
if (skip) {
  console.warn(
    `Skipping the HTML report browser test: ${chromiumPath} is missing (apt-get install chromium). ` +
      "With CI set it runs and fails instead.",
  );
}

const start = Date.parse("2026-05-01T00:00:00Z");
const bucketMs = 4 * 3_600_000;
const events = [...generateEvents({ count: 3_000, seed: 42, start, spanMs: 86_400_000 })];
// One call in the first bucket that timed out on every step, so there is a "no step" share.
events.push({
  ...(events[1] as CallEvent),
  id: "timeout-1",
  step: null,
  ok: false,
  status: 0,
  errorCode: "timeout",
});

function memorySource(list: readonly CallEvent[]): EventSource {
  return {
    kind: "events",
    name: "demo-events.jsonl",
    stats: { records: list.length, malformed: 0, malformedSamples: [] },
    async *events() {
      yield* list;
    },
  };
}

/** Two decimals; only exact 0 and 1 read 0.00% and 100.00% (the report's display rule). */
function percentText(rate: number): string {
  const text = (rate * 100).toFixed(2);
  if (text === "100.00" && rate < 1) return "99.99%";
  if (text === "0.00" && rate > 0) return "0.01%";
  return `${text}%`;
}

describe.skipIf(skip)("HTML report in headless Chromium", () => {
  let browser: Browser;
  let directory: string;
  let report: Report;
  let file: string;

  beforeAll(async () => {
    report = await buildReport(memorySource(events), {
      bucketMs,
      dimensions: ["route", "step"],
      now: () => start,
    });
    directory = await mkdtemp(path.join(tmpdir(), "stepwise-html-"));
    file = path.join(directory, "report.html");
    await writeFile(file, renderHtml(report));
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        "--no-sandbox",
        "--headless",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  async function open() {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const outside: string[] = [];
    const problems: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) outside.push(request.url());
    });
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(pathToFileURL(file).href);
    return { page, outside, problems };
  }

  it("draws per route one stacked bar per bucket with each provider/model's share, the cost bars and the availability line", async () => {
    const { page, outside, problems } = await open();
    const byBucket = new Map<number, CallEvent[]>();
    for (const event of events) {
      const bucket = Date.parse(event.time) - (Date.parse(event.time) % bucketMs);
      byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), event]);
    }
    expect(byBucket.size).toBe(6);

    const bars = await page.$$eval("svg.route-chart rect.route-bar", (rects) =>
      rects.map((rect) => ({
        route: rect.getAttribute("data-route"),
        served: rect.getAttribute("data-served"),
        start: rect.getAttribute("data-start"),
        share: Number(rect.getAttribute("data-share")),
        servedCalls: Number(rect.getAttribute("data-served-calls")),
        calls: Number(rect.getAttribute("data-calls")),
        height: (rect as SVGGraphicsElement).getBBox().height,
        title: rect.querySelector("title")?.textContent ?? "",
      })),
    );
    const expectedBars = [...byBucket.entries()].flatMap(([bucket, list]) => {
      const counts = new Map<string, number>();
      for (const event of list) {
        const key = `${event.route}\u0000${event.step === null ? "none" : `${event.provider}/${event.model}`}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return [...counts.entries()].map(([key, calls]) => {
        const [route = "", served = ""] = key.split("\u0000");
        const total = list.filter((event) => event.route === route).length;
        return { bucket, route, served, calls, total };
      });
    });
    expect(bars).toHaveLength(expectedBars.length);
    for (const expected of expectedBars) {
      const bar = bars.find(
        (item) =>
          item.route === expected.route &&
          item.served === expected.served &&
          item.start === new Date(expected.bucket).toISOString(),
      );
      expect(
        bar,
        `bar of ${expected.route} ${expected.served} at ${expected.bucket}`,
      ).toBeDefined();
      expect(bar?.share).toBe(expected.calls / expected.total);
      expect([bar?.servedCalls, bar?.calls]).toEqual([expected.calls, expected.total]);
      // The drawn height is the share of the 120 px panel.
      expect(Math.abs((bar?.height ?? 0) - 120 * (expected.calls / expected.total))).toBeLessThan(
        0.02,
      );
      const label = expected.served === "none" ? "no step" : expected.served;
      expect(bar?.title).toContain(
        `${label}: ${percentText(expected.calls / expected.total)} (${expected.calls.toLocaleString("en-US")} of ${expected.total.toLocaleString("en-US")} calls)`,
      );
    }
    expect(bars.some((bar) => bar.served === "none")).toBe(true);

    const costs = await page.$$eval("svg.chart rect.cost-bar", (rects) =>
      rects.map((rect) => ({
        start: rect.getAttribute("data-start"),
        cost: Number(rect.getAttribute("data-cost")),
      })),
    );
    expect(costs).toHaveLength(6);
    for (const bar of costs) {
      const list = byBucket.get(Date.parse(bar.start ?? "")) ?? [];
      expect(bar.cost).toBeCloseTo(referenceFigures(list, list.length).cost, 10);
    }

    const points = await page.$$eval("svg.chart circle.availability-point", (circles) =>
      circles.map((circle) => ({
        start: circle.getAttribute("data-start"),
        availability: Number(circle.getAttribute("data-availability")),
        cy: Number(circle.getAttribute("cy")),
        title: circle.querySelector("title")?.textContent ?? "",
      })),
    );
    expect(points.map((point) => point.start)).toEqual(
      [...byBucket.keys()].sort((a, b) => a - b).map((time) => new Date(time).toISOString()),
    );
    for (const point of points) {
      const list = byBucket.get(Date.parse(point.start ?? "")) ?? [];
      const availability = referenceFigures(list, list.length).availability ?? 0;
      expect(point.availability).toBe(availability);
      expect(point.title).toContain(`availability ${percentText(availability)}`);
    }
    // Lower availability sits lower on the chart (larger y).
    const sorted = [...points].sort((a, b) => a.availability - b.availability);
    for (let index = 1; index < sorted.length; index += 1) {
      if ((sorted[index]?.availability ?? 0) > (sorted[index - 1]?.availability ?? 0)) {
        expect(sorted[index]?.cy).toBeLessThan(sorted[index - 1]?.cy ?? 0);
      }
    }
    const chart = await page.locator("#chart svg.chart").boundingBox();
    expect(chart?.width).toBeGreaterThan(500);
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows the totals and every group row with the right numbers", async () => {
    const { page } = await open();
    const expectedTotals = referenceFigures(events, events.length);
    // innerText: the text as rendered, what a reader sees.
    const cardFigures = await page
      .locator("#totals .value")
      .evaluateAll((elements) => elements.map((element) => element.getAttribute("data-figure")));
    const cardTexts = await page.locator("#totals .value").allInnerTexts();
    const cards = Object.fromEntries(
      cardFigures.map((figure, index) => [figure, cardTexts[index]]),
    );
    expect(cards.calls).toBe(events.length.toLocaleString("en-US"));
    expect(cards.availability).toBe(percentText(expectedTotals.availability ?? 0));
    expect(cards.fallbackRate).toBe(percentText(expectedTotals.fallbackRate ?? 0));
    expect(cards.cacheHitRate).toBe(percentText(expectedTotals.cacheHitRate ?? 0));

    const rows: string[][] = [];
    for (const row of await page.locator("#groups tbody tr:not(.total)").all()) {
      rows.push(await row.locator("td").allInnerTexts());
    }
    const groups = referenceGroups(events, ["route", "step"]);
    expect(rows).toHaveLength(groups.size);
    for (const [route, step, calls, share, success, availability, fallback] of rows) {
      const list =
        groups.get(JSON.stringify({ route, step: step === "none" ? null : Number(step) })) ?? [];
      const expected = referenceFigures(list, events.length);
      expect([calls, share, success, availability, fallback]).toEqual([
        expected.calls.toLocaleString("en-US"),
        percentText(expected.share ?? 0),
        percentText(expected.successRate ?? 0),
        percentText(expected.availability ?? 0),
        percentText(expected.fallbackRate ?? 0),
      ]);
    }
    const routeRows: Array<{ route: string; stepZero: string }> = [];
    expect(await page.locator("#routes thead th").allInnerTexts()).toEqual(
      expect.arrayContaining(["route", "step 0"]),
    );
    for (const row of await page.locator("#routes tbody tr").all()) {
      // gateway, route, calls, success, availability, fallback, step 0, step 1, …
      const cells = await row.locator("td").allInnerTexts();
      routeRows.push({ route: cells[1] ?? "", stepZero: cells[6] ?? "" });
    }
    for (const row of routeRows) {
      const list = events.filter((event) => event.route === row.route);
      expect(row.stepZero).toBe(
        percentText(list.filter((event) => event.step === 0).length / list.length),
      );
    }
    const seriesRows = await page.locator("#series tbody tr").count();
    expect(seriesRows).toBe(6);
    await page.close();
  });

  it("fits a 1,280 px window with every column, and puts the legend right under its chart", async () => {
    // The default grouping (five dimensions, twelve figures) with a comparison: the widest page.
    const wide = await buildReport(memorySource(events), {
      window: { since: start + 43_200_000, until: start + 86_400_000 },
      compareWindow: { since: start, until: start + 43_200_000 },
      now: () => start,
    });
    const wideFile = path.join(directory, "wide.html");
    await writeFile(wideFile, renderHtml(wide));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(wideFile).href);
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      tables: [...document.querySelectorAll(".table-wrap")].map((wrap) => ({
        id: wrap.querySelector("table")?.id,
        scroll: wrap.scrollWidth,
        client: wrap.clientWidth,
      })),
    }));
    expect(widths.page).toBeLessThanOrEqual(1280);
    for (const table of widths.tables) {
      expect(table.scroll, `table #${table.id} needs no sideways scrolling`).toBeLessThanOrEqual(
        table.client,
      );
    }
    // Automatic buckets from the 12-hour window: 15 minutes, 48 bars.
    expect(await page.locator("svg.chart circle.availability-point").count()).toBe(48);
    const chart = await page.locator("#chart svg").boundingBox();
    const legend = await page.locator("#chart figcaption.legend").boundingBox();
    expect(chart && legend).toBeTruthy();
    expect((legend?.y ?? 0) - ((chart?.y ?? 0) + (chart?.height ?? 0))).toBeLessThan(24);
    expect(await page.locator("#chart .legend-item").allInnerTexts()).toEqual([
      "cost",
      "availability",
    ]);
    await page.close();
  });
});
