/**
 * docs/analytics.md's "Why calls failed over, and what fallback cost" commands, run as written on
 * an events file generated with the dev stack's routes and prices: the per-step table with the
 * failure reasons stays under `--by metadata.plan`, and `--config` prices the fallback calls at
 * each route's primary.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateEvents, writeEventLines } from "../../tools/scripts/generate-events.ts";
import { documented, makeSandbox, runDocumented, type Sandbox } from "./documented.ts";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await makeSandbox();
  const spanMs = 3_600_000;
  const events = generateEvents({ count: 500, seed: 9, start: Date.now() - spanMs, spanMs });
  await writeEventLines(
    path.join(sandbox.directory, "events.jsonl"),
    (function* () {
      for (const event of events) yield JSON.stringify({ ...event, metadata: { plan: "pro" } });
    })(),
  );
});

afterAll(async () => {
  await sandbox?.remove();
});

describe("failure reasons and the cost of fallback, as the docs show them", () => {
  it("keeps the steps of each route under --by metadata.plan and prices fallback at the primary", async () => {
    const result = await runDocumented(
      documented("npx stepwise report events.jsonl --by metadata.plan --config Pulumi.dev.yaml"),
      { sandbox },
    );
    expect(result.code, result.output).toBe(0);
    expect(result.stdout).toMatch(/\nBy metadata\.plan\n/);
    const steps = result.stdout.split("Steps per route: calls served and failures by reason")[1];
    expect(steps).toMatch(/chat-prod\s+default\s+0\s+anthropic\/claude-sonnet-4-5\s+[\d,]+/);
    const fallback = result.stdout.split("Cost of fallback beside the primary")[1] ?? "";
    // The primary comes from the config, so its price is known: a dollar figure, not —.
    expect(fallback).toMatch(
      /chat-prod\s+default\s+\$[\d.]+\s+\d+\s+\$[\d.]+\s+anthropic\/claude-sonnet-4-5\s+\$[\d.]+/,
    );
    expect(fallback).not.toContain("give --config");
  });
});
