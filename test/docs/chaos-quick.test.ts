/**
 * `npm run chaos:quick` as the README shows it (with `--json`, one of its documented options, to
 * read the result): 300 calls through client → Worker → emulator → mock providers with faults and
 * key rotations, every invariant held, the time budgets sized to the machine, and the event-loop
 * lag reported.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CampaignResult } from "../../src/chaos/index.ts";
import { documented, makeSandbox, runDocumented, type Sandbox } from "./documented.ts";

let sandbox: Sandbox;
let run: Awaited<ReturnType<typeof runDocumented>>;
let result: CampaignResult;

beforeAll(async () => {
  sandbox = await makeSandbox();
  run = await runDocumented(documented("npm run chaos:quick"), { sandbox, append: "--json" });
  result = JSON.parse(run.stdout) as CampaignResult;
}, 600_000);

afterAll(async () => {
  await sandbox?.remove();
});

describe("npm run chaos:quick, as the README shows it", () => {
  it("runs 300 calls and exits 0 with every check held", () => {
    for (const check of result.checks) expect(check, check.detail).toMatchObject({ ok: true });
    expect(run.code).toBe(0);
    expect(result.ok).toBe(true);
    expect(result.calls.total).toBe(300);
    expect(result.settings.concurrency).toBe(12);
  });

  it("rotates each provider's key through the Worker during the run", () => {
    expect(result.rotations).toMatchObject({ planned: 6, done: 6, failed: 0 });
  });

  it("says on stderr how it sized itself to the machine, and reports the event-loop lag", () => {
    expect(run.stderr).toMatch(/sized to this machine \(\d+ cores\): healthy calls take p90/);
    expect(result.machine.lag.p99Ms).toBeGreaterThanOrEqual(0);
    expect(result.machine.starvation.summary).toMatch(/^event-loop lag p99 /);
  });
});
