/**
 * The README's demo options and scenario example, run as written: the YAML block saved as
 * `my-outage.yaml` in a fresh project, then the command that runs it. The text claims that half
 * of the calls fall back to step 1 while anthropic is down, that the healthy phases are served by
 * step 0, that a key rotation fails no call, and that these options stay within the gateway's
 * rate limit.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallEvent } from "../../src/client/index.ts";
import { documented, fencedBlock, makeSandbox, runDocumented, type Sandbox } from "./documented.ts";

let sandbox: Sandbox;
let run: Awaited<ReturnType<typeof runDocumented>>;
let events: CallEvent[];

beforeAll(async () => {
  sandbox = await makeSandbox();
  await writeFile(
    path.join(sandbox.directory, "my-outage.yaml"),
    fencedBlock("README.md", "yaml", "name: anthropic down"),
  );
  run = await runDocumented(
    documented(
      "npx stepwise demo --calls 500 --concurrency 12 --rate 50 --scenario my-outage.yaml",
    ),
    { sandbox },
  );
  const text = await readFile(path.join(sandbox.directory, ".stepwise/demo/events.jsonl"), "utf8");
  events = text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as CallEvent);
}, 600_000);

afterAll(async () => {
  await sandbox?.remove();
});

describe("the README's demo options and scenario example", () => {
  it("runs 500 calls, 12 at a time, within the gateway's rate limit, and fails none", () => {
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toContain("Stepwise demo · Pulumi.dev.yaml · 500 calls, 12 at a time");
    expect(run.output).not.toContain("⚠");
    expect(events).toHaveLength(500);
    expect(events.filter((event) => !event.ok)).toEqual([]);
    expect(run.stdout).toContain("✔ nothing lost: 500 calls, 500 events recorded");
  });

  it("prints each phase with what it shows", () => {
    expect(run.output).toContain("▶ healthy: every provider answers");
    expect(run.output).toContain(
      "▶ anthropic down: the primary answers 503, so openai (step 1) serves",
    );
    expect(run.output).toContain(
      "▶ key rotation: an operator rotates anthropic's key mid-phase; no call fails",
    );
    expect(run.output).toMatch(/operator rotated anthropic to version \d{13}-[0-9a-f]+/);
  });

  it("falls back to step 1 for about half of the calls, and serves the rest from step 0", () => {
    const byStep = (step: number) => events.filter((event) => event.step === step).length;
    // The anthropic-down phase is 250 calls; its open circuit takes a moment to close after.
    expect(byStep(1)).toBeGreaterThanOrEqual(225);
    expect(byStep(1)).toBeLessThanOrEqual(325);
    expect(byStep(0)).toBeGreaterThanOrEqual(150);
    // The healthy phase comes first (a slow moment on a busy machine may time out a call or two).
    const first = [...events].sort((a, b) => a.time.localeCompare(b.time)).slice(0, 100);
    expect(first.filter((event) => event.step === 0).length).toBeGreaterThanOrEqual(90);
  });
});
