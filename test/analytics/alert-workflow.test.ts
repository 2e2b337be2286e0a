/**
 * The scheduled step-rate check (.github/workflows/step-rate-alerts.yml) is a real workflow: a
 * cron trigger, actions pinned by commit, the token from a secret, and a report command that
 * works as written (run here against the SQL API fake, passing on good traffic and failing on
 * bad).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ThresholdError } from "../../src/analytics/index.ts";
import { reportCommand } from "../../src/cli/commands/report.ts";
import { createFakeSqlApi } from "../../tools/fakes/analytics-engine-sql-api.ts";
import { asStored, callPointOf } from "../../tools/fakes/call-points.ts";
import { generateEvents } from "../../tools/scripts/generate-events.ts";

const file = path.resolve(import.meta.dirname, "../../.github/workflows/step-rate-alerts.yml");
const workflow = parse(readFileSync(file, "utf8")) as {
  on: { schedule: Array<{ cron: string }> };
  jobs: {
    check: {
      steps: Array<{ uses?: string; run?: string; env?: Record<string, string> }>;
    };
  };
};
const accountId = "0123456789abcdef0123456789abcdef";
const sql = createFakeSqlApi({ accountId, apiToken: "token", dataset: "stepwise_events" });
afterAll(() => sql.close());

describe("the scheduled step-rate check", () => {
  const steps = workflow.jobs.check.steps;
  const check = steps.find((step) => step.run?.includes("report"));

  it("runs hourly with pinned actions and the token from a secret", () => {
    expect(workflow.on.schedule[0]?.cron).toMatch(/^\S+ \* \* \* \*$/);
    for (const step of steps.filter((step) => step.uses)) {
      expect(step.uses).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
    }
    expect(check?.env?.CLOUDFLARE_API_TOKEN).toMatch(/^\$\{\{ secrets\.CLOUDFLARE_API_TOKEN \}\}$/);
  });

  it("passes on healthy traffic and fails when the fallback rate is high", async () => {
    const now = Date.parse("2026-05-01T12:00:00Z");
    const args = (check?.run ?? "").split(/\s+/).filter(Boolean).slice(3);
    expect(args.slice(0, 2)).toEqual(["--source", "analytics-engine"]);
    const run = async () => {
      const command = reportCommand({
        now: () => now,
        env: {
          CLOUDFLARE_API_TOKEN: "token",
          CLOUDFLARE_ACCOUNT_ID: accountId,
          CLOUDFLARE_BASE_URL: sql.baseURL,
        },
        fetch: sql.fetch,
        write: () => undefined,
      }).exitOverride();
      return command.parseAsync(args, { from: "user" }).then(
        () => null,
        (error: unknown) => error,
      );
    };
    const hour = (from: number, fallback: boolean) =>
      [...generateEvents({ count: 200, seed: 3, start: from, spanMs: 3_600_000 })]
        .map(asStored)
        .map((event) => ({
          time: Date.parse(event.time),
          point: callPointOf({
            ...event,
            ok: true,
            status: 200,
            errorCode: null,
            step: fallback ? 1 : 0,
          }),
        }));
    await sql.load([...hour(now - 7_200_000, false), ...hour(now - 3_600_000, false)]);
    expect(await run()).toBeNull();
    await sql.load([...hour(now - 7_200_000, false), ...hour(now - 3_600_000, true)]);
    const failed = await run();
    expect(ThresholdError.isInstance(failed)).toBe(true);
    expect((failed as Error).message).toMatch(/fallback-rate 100(\.00)?% is above the threshold 5/);
  });
});
