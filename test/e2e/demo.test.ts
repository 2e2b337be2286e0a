import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallEvent } from "../../src/client/index.ts";
import { loadConfig } from "../../src/config/index.ts";
import { type DemoResult, defaultScenario, runDemo } from "../../src/demo/index.ts";
import { projectRoot } from "./worker-harness.ts";

let outDir: string;
let result: DemoResult;
const logLines: string[] = [];
const progressText: string[] = [];

beforeAll(async () => {
  outDir = await mkdtemp(path.join(tmpdir(), "stepwise-demo-"));
  const { config } = await loadConfig({ stack: "dev", cwd: projectRoot });
  const progressStream = new PassThrough() as unknown as NodeJS.WriteStream;
  (progressStream as unknown as PassThrough).on("data", (chunk: Buffer) =>
    progressText.push(chunk.toString()),
  );
  result = await runDemo({
    config,
    scenario: defaultScenario(),
    calls: 100,
    concurrency: 4,
    ratePerSecond: 50,
    outDir,
    timeoutCapMs: 300,
    breakerCooldownMs: 200,
    log: (line) => logLines.push(line),
    progressStream,
  });
}, 120_000);

afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

async function readEvents(): Promise<CallEvent[]> {
  const text = await readFile(result.eventsFile, "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as CallEvent);
}

describe("stepwise demo (the whole system on one machine)", () => {
  it("records every call exactly once", async () => {
    const events = await readEvents();
    expect(result.calls).toBe(100);
    expect(result.events).toBe(100);
    expect(events).toHaveLength(100);
    expect(new Set(events.map((event) => event.id)).size).toBe(100);
  });

  it("keeps every call answered through outages, a 429 storm and a revoked key, by falling back", () => {
    const totals = result.report.totals;
    expect(totals.calls).toBe(100);
    expect(totals.availability).toBe(1);
    expect(totals.fallbackRate).toBeGreaterThan(0.1);
    expect(totals.steps["0"]).toBeGreaterThan(0);
    expect(result.breakerTransitions).toBeGreaterThan(0);
  });

  it("serves from the primary again after the key is rotated in through the Worker", async () => {
    const events = (await readEvents()).sort((a, b) => a.time.localeCompare(b.time));
    const recovery = events.slice(-15);
    expect(recovery.filter((event) => event.step === 0).length).toBeGreaterThan(0);
    expect(progressText.join("")).toMatch(
      /operator rotated anthropic to version \d{13}-[0-9a-f]+ \(sha256:[0-9a-f]{12}\)/,
    );
    expect(progressText.join("")).toMatch(/circuit anthropic: half-open → closed/);
  });

  it("writes the HTML report and prints the step-rate table", async () => {
    const html = await readFile(result.htmlFile, "utf8");
    expect(html).toContain("<svg");
    expect(logLines.join("\n")).toMatch(/Routes \(step share of each route's calls\)/);
  });

  it("sends every other call to the assistant route, whose policy picks a chain by plan and tier", async () => {
    const events = (await readEvents()).filter((event) => event.route === "assistant");
    expect(events).toHaveLength(50);
    const chainsOf = (plan: string, tiers: string[]) =>
      new Set(
        events
          .filter(
            (event) =>
              event.metadata?.plan === plan && tiers.includes(String(event.metadata?.tier)),
          )
          .map((event) => event.policy?.chain),
      );
    // Both plans meet all three of the scorer's tiers, and each takes its rule's chains.
    for (const plan of ["free", "pro"]) {
      for (const tier of ["simple", "moderate", "complex"]) {
        expect(chainsOf(plan, [tier]).size, `${plan} × ${tier}`).toBeGreaterThan(0);
      }
    }
    expect(chainsOf("free", ["complex"])).toEqual(new Set(["default"]));
    expect(chainsOf("free", ["simple", "moderate"])).toEqual(new Set(["economy"]));
    expect(chainsOf("pro", ["complex"])).toEqual(new Set(["frontier", "default"]));
    expect([...chainsOf("pro", ["simple", "moderate"])]).toContain("default");
    expect(logLines.join("\n")).toContain("rule 2: plan=pro tier=complex → frontier");
  });

  it("spends the frontier chain's cost budget mid-run and sends later pro × complex calls to default", async () => {
    const budgeted = (await readEvents())
      .filter((event) => event.policy?.budget !== undefined)
      .sort((a, b) => a.time.localeCompare(b.time));
    const outcomes = budgeted.map((event) => event.policy?.budget);
    expect(outcomes[0]).toBe("within");
    expect(outcomes.at(-1)).toBe("over");
    const firstOver = outcomes.indexOf("over");
    expect(firstOver).toBeGreaterThan(0);
    expect(budgeted.slice(firstOver).every((event) => event.policy?.chain === "default")).toBe(
      true,
    );
    expect(progressText.join("")).toMatch(
      /budget of rule 2 spent \(\$0\.001 per 3600 s per plan\) after \d+ calls on assistant: its calls now take default/,
    );
  });

  it("prints the policy route's calls grouped by plan and tier, with the budget hits", () => {
    const text = logLines.join("\n");
    expect(text).toContain("By metadata.plan · metadata.tier");
    const proComplex = text.split("\n").find((line) => /^pro\s+complex\s/.test(line));
    expect(proComplex).toBeDefined();
    // The last column is the calls a spent budget sent to its over chain.
    expect(Number(proComplex!.trim().split(/\s+/).at(-1))).toBeGreaterThan(0);
    expect(text).toMatch(/^free\s+simple\s/m);
  });

  it("never shows a provider key or the app token in events, logs or progress", async () => {
    const everything = [
      await readFile(result.eventsFile, "utf8"),
      ...logLines,
      ...progressText,
    ].join("\n");
    expect(everything).not.toMatch(/demo-[a-z-]+-\d+-[0-9a-f]{12}/);
    expect(everything).not.toMatch(/sw_[0-9a-f]{12}_/);
  });
});
