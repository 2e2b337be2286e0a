import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CampaignResult, renderReport, runCampaign } from "../../src/chaos/index.ts";
import { loadConfig } from "../../src/config/index.ts";
import { projectRoot } from "../e2e/worker-harness.ts";

// A quick campaign through the real system: client → companion Worker (workerd) → emulator →
// mock providers, with the seeded fault plan and key rotations. The campaign sizes its time
// budgets to the machine (healthy calls measured first), so it holds on a busy machine; when it
// fails anyway and the machine was starved for CPU, each failed check says so.
let result: CampaignResult;
const logLines: string[] = [];
let progressText = "";
const stop = new AbortController();
let campaign: Promise<CampaignResult> | undefined;

beforeAll(async () => {
  const { config } = await loadConfig({ stack: "dev", cwd: projectRoot });
  const progressStream = new PassThrough();
  progressStream.on("data", (chunk: Buffer) => {
    progressText += chunk.toString();
  });
  campaign = runCampaign({
    config,
    quick: true,
    calls: 250,
    concurrency: 12,
    seed: 7,
    log: (line) => logLines.push(line),
    progressStream,
    signal: stop.signal,
  });
  result = await campaign;
}, 600_000);

// If the hook failed or timed out, the campaign is still running: stop it, and with it the
// Worker's workerd, the emulator and the mocks.
afterAll(async () => {
  stop.abort(new Error("the test is over"));
  await campaign?.catch(() => undefined);
});

describe("a quick fault campaign through client → Worker → emulator", () => {
  it("sizes itself to the machine and measures how starved it was", () => {
    const { machine, settings } = result;
    expect(machine.cores).toBeGreaterThan(0);
    expect(machine.baseline?.calls).toBe(36);
    // Step timeouts are at least 8 healthy-call latencies, and never below the quick default.
    expect(settings.timeoutCapMs).toBeGreaterThanOrEqual(500);
    expect(settings.timeoutCapMs).toBeGreaterThanOrEqual(8 * machine.baseline!.p90Ms);
    expect(settings.deadlineMs).toBeGreaterThanOrEqual(5 * settings.timeoutCapMs);
    expect(machine.lag.maxMs).toBeGreaterThanOrEqual(machine.lag.p99Ms);
    expect(logLines.join("\n")).toMatch(
      /sized to this machine \(\d+ cores\): healthy calls take p90/,
    );
  });

  it("holds every invariant", () => {
    for (const check of result.checks) expect(check, check.detail).toMatchObject({ ok: true });
    expect(result.checks.map((check) => check.name)).toEqual([
      "every call recorded exactly once",
      "no call runs past its deadline",
      "no rejection goes unhandled",
      "no key appears in any output",
      "memory stays flat",
      "key rotations never fail a call",
      "availability meets the theory",
      "streamed calls are as available as plain ones",
    ]);
    expect(result.ok).toBe(true);
  });

  it("sends plain and streamed calls through faults on the route's providers", () => {
    expect(result.calls.total).toBe(250);
    expect(result.calls.stream).toBeGreaterThan(30);
    expect(result.calls.plain).toBeGreaterThan(150);
    const primary = result.steps[0]!;
    expect(primary.provider).toBe("anthropic");
    expect(primary.usedPlan).toBe(false);
    // The injected rate per attempt is the planned 30 %, within sampling noise.
    expect(primary.injected.faulted).toBeGreaterThan(0.2);
    expect(primary.injected.faulted).toBeLessThan(0.4);
    expect(result.kinds.planned).toBe(19);
    expect(result.kinds.injected.length).toBeGreaterThanOrEqual(12);
    // Fallback served calls the primary failed.
    expect(result.calls.byStep["1"]).toBeGreaterThan(0);
  });

  it("keeps availability at or above what the theory expects from the injected rates", () => {
    const { measured, expected, theoretical } = result.availability;
    expect(measured).toBeGreaterThanOrEqual(expected - result.settings.availabilityTolerance);
    // Retries and fallback leave plain calls above 1 − Π p, and streamed calls too: a stream that
    // breaks after its first byte goes on with the next step, as a failed attempt does.
    expect(result.availability.measuredPlain).toBeGreaterThanOrEqual(theoretical - 0.02);
    expect(result.availability.measuredStream).toBeGreaterThanOrEqual(theoretical - 0.04);
  });

  it("rotates keys through the Worker while calls run, and revokes each old key afterwards", () => {
    expect(result.rotations).toMatchObject({
      planned: 6,
      done: 6,
      failed: 0,
      revoked: 6,
      callsRefusedForKey: 0,
    });
    expect(progressText).toMatch(
      /rotated openai to version \d{13}-[0-9a-f]+ \(sha256:[0-9a-f]{12}\)/,
    );
  });

  it("scanned every event, answer, Worker log line and gateway log record for keys", () => {
    expect(result.scanned["call events"]?.items).toBe(250);
    expect(result.scanned["answers and errors"]?.items).toBe(250);
    expect(result.scanned["gateway log records"]?.items).toBeGreaterThanOrEqual(250);
    expect(result.drained.mockAttempts).toBeGreaterThanOrEqual(250);
  });

  it("reports the figures, the theory and each check", () => {
    const report = renderReport(result).join("\n");
    expect(report).toContain("theoretical");
    expect(report).toMatch(/= 1 − Π p, p = 0\.\d{3} · 0\.\d{3} · 0\.\d{3}/);
    expect(report).toContain("✔ every call recorded exactly once");
    expect(report).toContain("✔ every invariant held");
    expect(report).toMatch(
      /machine \d+ cores · healthy calls p90 [\d.,]+ ms.* · event-loop lag p99/,
    );
    expect(logLines.join("\n")).toContain("250 calls, 12 at a time, seed 7");
    expect(progressText).toContain("250/250 calls done");
  });
});
