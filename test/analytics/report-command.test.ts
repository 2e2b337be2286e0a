import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AnalyticsError, type Report, ThresholdError } from "../../src/analytics/index.ts";
import { reportCommand } from "../../src/cli/commands/report.ts";
import { main } from "../../src/cli/main.ts";
import {
  generateEventLines,
  generateEvents,
  writeEventLines,
} from "../../tools/scripts/generate-events.ts";
import { referenceFigures, referenceWindow } from "./reference.ts";

const start = Date.parse("2026-05-01T00:00:00Z");
const now = start + 2 * 86_400_000;
const events = [...generateEvents({ count: 3_000, seed: 8, start, spanMs: 2 * 86_400_000 })];
let directory = "";
let file = "";

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-report-"));
  file = path.join(directory, "events.jsonl");
  await writeEventLines(
    file,
    generateEventLines({
      count: 3_000,
      seed: 8,
      start,
      spanMs: 2 * 86_400_000,
      malformedEvery: 1_000,
    }),
  );
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs `stepwise report …args` through the command's action; returns what it printed. */
async function report(args: string[], dependencies: Parameters<typeof reportCommand>[0] = {}) {
  let output = "";
  const command = reportCommand({
    now: () => now,
    env: {},
    write: (text) => {
      output += text;
    },
    ...dependencies,
  }).exitOverride();
  const result = command.parseAsync(args, { from: "user" });
  return { result, output: () => output };
}

const good = events.filter((_, index) => (index + 1) % 1_000 !== 0);

describe("stepwise report", () => {
  it("prints the table for an events file, with the malformed lines", async () => {
    const run = await report([file]);
    await run.result;
    const text = run.output();
    expect(text).toContain(`${good.length.toLocaleString("en-US")} calls counted`);
    expect(text).toMatch(/3 malformed record\(s\) skipped, first ones:\n {2}line 1000: /);
    expect(text).toContain("By gateway · route · step · provider · model");
  });

  it("prints JSON or CSV of the window asked for", async () => {
    const json = await report([file, "--json", "--since", "24h", "--by", "route"]);
    await json.result;
    const parsed = JSON.parse(json.output()) as Report;
    const inside = referenceWindow(good, now - 86_400_000, now);
    expect(parsed.window).toEqual({
      since: new Date(now - 86_400_000).toISOString(),
      until: new Date(now).toISOString(),
    });
    expect(parsed.dimensions).toEqual(["gateway", "route"]);
    expect(parsed.totals.calls).toBe(inside.length);
    expect(parsed.totals.fallbackRate).toBe(referenceFigures(inside, inside.length).fallbackRate);

    const csv = await report([file, "--csv", "--by", "provider"]);
    await csv.result;
    const lines = csv.output().trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^period,scope,bucket_start,bucket_end,gateway,route,step,provider,model,calls,/,
    );
    expect(lines.filter((line) => line.startsWith("current,group,")).length).toBe(
      new Set(good.map((event) => event.provider)).size,
    );
  });

  it("reads stdin for - and writes a self-contained HTML report", async () => {
    const html = path.join(directory, "report.html");
    const stdin = Readable.from([
      events
        .slice(0, 200)
        .map((event) => JSON.stringify(event))
        .join("\n"),
    ]);
    const run = await report(["-", "--html", html, "--bucket", "1h"], { stdin });
    await run.result;
    expect(run.output()).toContain("200 calls counted");
    expect(run.output()).toContain(`HTML report written to ${html}`);
    const page = await readFile(html, "utf8");
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<svg class="chart"');
    expect(page).not.toMatch(/<script|<link|src="http|href="http/);
  });

  it("fails a crossed threshold after printing the report, naming metric, value and threshold", async () => {
    const totals = referenceFigures(good, good.length);
    const run = await report([
      file,
      "--fail-above",
      "fallback-rate=0.01",
      "--fail-below",
      "availability=0.5",
    ]);
    const error = await run.result.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ThresholdError);
    expect((error as ThresholdError).message).toBe(
      `1 threshold crossed:\n  ✖ fallback-rate ${Number(((totals.fallbackRate ?? 0) * 100).toFixed(2))}% is above the threshold 1% (--fail-above fallback-rate=0.01)`,
    );
    expect(run.output()).toContain("By gateway · route · step");

    const passing = await report([
      file,
      "--fail-above",
      "fallback-rate=0.5",
      "--fail-below",
      "availability=50%",
    ]);
    await passing.result;
    expect(passing.output()).toContain("✔ 2 threshold(s) met");
  });

  it("exits 1 with the message on stderr, and 0 when every threshold holds", async () => {
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const stderr = vi.spyOn(console, "error").mockImplementation(() => undefined);
    expect(await main(["report", file, "--fail-above", "fallback-rate=0.01"])).toBe(1);
    expect(stderr.mock.calls.flat().join("\n")).toMatch(
      /✖ fallback-rate [\d.]+% is above the threshold 1% \(--fail-above fallback-rate=0.01\)/,
    );
    expect(
      await main([
        "report",
        file,
        "--fail-below",
        "availability=0.9",
        "--fail-above",
        "p99-latency-ms=60000",
      ]),
    ).toBe(0);
    expect(stdout).toHaveBeenCalled();
  });

  it("explains bad options", async () => {
    const cases: Array<[string[], RegExp]> = [
      [[file, "--by", "colour"], /--by "colour" is not a dimension/],
      [[file, "--compare", "previous"], /--compare needs a closed window.*--since/],
      [[file, "--since", "last tuesday"], /--since "last tuesday" is not a time/],
      [[file, "--fail-above", "latency=5"], /not metric=value\. Metrics: fallback-rate/],
      [[], /Give the events file to read, or - to read stdin/],
      [
        ["--source", "logs", "--gateway", "chat-prod", "--account-id", "abc"],
        /Set CLOUDFLARE_API_TOKEN/,
      ],
      [["--source", "logs", "--account-id", "abc"], /exactly one --gateway/],
    ];
    for (const [args, message] of cases) {
      const run = await report(args);
      await expect(run.result).rejects.toThrow(AnalyticsError);
      await expect(run.result).rejects.toThrow(message);
    }
  });

  it("reads the gateway logs with the token from the environment and the given base URL", async () => {
    const urls: string[] = [];
    const fetch = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      urls.push(url.href);
      const headers = new Headers(input instanceof Request ? input.headers : init?.headers);
      expect(headers.get("authorization")).toBe("Bearer env-token");
      const page = Number(url.searchParams.get("page"));
      const result =
        page === 1
          ? [
              {
                id: "a",
                created_at: "2026-05-02T10:00:00Z",
                provider: "openai",
                model: "gpt-4o-mini",
                duration: 120,
                success: true,
                cached: false,
                status_code: 200,
                tokens_in: 5,
                tokens_out: 7,
                cost: 0.01,
                step: 1,
                metadata: '{"route":"default"}',
              },
            ]
          : [];
      return Response.json({
        success: true,
        errors: [],
        messages: [],
        result,
        result_info: { page, per_page: 5 },
      });
    });
    const run = await report(
      [
        "--source",
        "logs",
        "--gateway",
        "chat-prod",
        "--account-id",
        "acc",
        "--base-url",
        "http://127.0.0.1:9/client/v4",
        "--per-page",
        "5",
        "--json",
      ],
      { env: { CLOUDFLARE_API_TOKEN: "env-token" }, fetch },
    );
    await run.result;
    const parsed = JSON.parse(run.output()) as Report;
    expect(urls[0]).toMatch(
      /^http:\/\/127\.0\.0\.1:9\/client\/v4\/accounts\/acc\/ai-gateway\/gateways\/chat-prod\/logs\?page=1&per_page=5/,
    );
    expect(parsed.source).toMatchObject({ kind: "logs", records: 1 });
    expect(parsed.totals).toMatchObject({ calls: 1, fallbackRate: 1, cost: 0.01 });
    expect(run.output()).not.toContain("env-token");
  });

  it("has --help with examples", async () => {
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    expect(await main(["report", "--help"])).toBe(0);
    const help = stdout.mock.calls.map((call) => String(call[0])).join("");
    expect(help).toContain("Examples:");
    expect(help).toContain("--fail-above fallback-rate=0.05");
    expect(help).toContain("--source <kind>");
  });
});
