/**
 * The HTML report's steering tables in a real headless Chromium, from events the real client
 * recorded against the emulator (`steering-events.ts`): what a reader sees in each cell (counts
 * with shares, `—` where nothing was recorded), and that the tables fit a 1,280 px window. Skips
 * only on a developer machine without /usr/bin/chromium; with CI set it runs and fails instead.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { renderHtml } from "../../src/analytics/render/html.ts";
import { buildReport } from "../../src/analytics/report.ts";
import { eventsFileSource } from "../../src/analytics/sources/events-file.ts";
import { recordSteeredCalls } from "./steering-events.ts";

const chromiumPath = "/usr/bin/chromium";
const skip = !existsSync(chromiumPath) && !process.env.CI;

describe.skipIf(skip)("the steering tables in headless Chromium", () => {
  let browser: Browser | undefined;
  let directory = "";
  let file = "";

  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), "stepwise-steering-html-"));
    const events = path.join(directory, "events.jsonl");
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      await recordSteeredCalls(events);
    } finally {
      vi.useRealTimers();
    }
    const report = await buildReport(eventsFileSource(events), {
      now: () => Date.parse("2026-05-02T00:00:00.000Z"),
    });
    file = path.join(directory, "report.html");
    await writeFile(file, renderHtml(report));
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ["--no-sandbox", "--headless", "--disable-gpu", "--no-first-run"],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it("shows counts with shares, — where nothing was recorded, and fits 1,280 px", async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(pathToFileURL(file).href);
      // innerText: the text as rendered, what a reader sees.
      const rows: string[][] = [];
      for (const row of await page.locator("#steering tbody tr, #steered-steps tbody tr").all()) {
        rows.push((await row.locator("td").allInnerTexts()).map((text) => text.trim()));
      }
      expect(rows).toEqual([
        [
          "chat-test",
          "default",
          "6",
          "2 (33.33%)",
          "1 (16.67%)",
          "2 (33.33%)",
          "3",
          "2",
          "cost_cap 1",
          "1 (50.00%)",
          expect.stringMatching(/^\$0\.0000\d\d$/),
        ],
        ["chat-test", "plain", "1", "—", "—", "—", "—", "—", "—", "—", "—"],
        [
          "total",
          "7",
          "2 (33.33%)",
          "1 (16.67%)",
          "2 (33.33%)",
          "3",
          "2",
          "cost_cap 1",
          "1 (50.00%)",
          expect.stringMatching(/^\$0\.0000\d\d$/),
        ],
        [
          "chat-test",
          "default",
          "0",
          "anthropic",
          "claude-sonnet-4-5",
          "2 (33.33%)",
          "0 (0.00%)",
          "skipped: rpm_cap 2",
        ],
        [
          "chat-test",
          "default",
          "1",
          "openai",
          "gpt-4o-mini",
          "0 (0.00%)",
          "1 (16.67%)",
          "demoted: down 1",
        ],
      ]);
      const widths = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        tables: ["steering", "steered-steps"].map((id) => {
          const wrap = document.getElementById(id)!.parentElement!;
          return { id, scroll: wrap.scrollWidth, client: wrap.clientWidth };
        }),
      }));
      expect(widths.page).toBeLessThanOrEqual(1280);
      for (const table of widths.tables) {
        expect(table.scroll, `#${table.id} needs no sideways scrolling`).toBeLessThanOrEqual(
          table.client,
        );
      }
    } finally {
      await page.close();
    }
  });
});
