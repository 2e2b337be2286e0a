/**
 * `stepwise report --by endpoint` (issue #25): one route called through the universal endpoint,
 * the compat endpoint's `dynamic/<route>` and the REST API, counted per generation, each row the
 * calls that endpoint carried; `--by step,endpoint` splits each step's row the same way. Without
 * it, the generations stay in one table (the migration guide's report).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/analytics/index.ts";
import { withStepAndRoute } from "../../src/analytics/sql/assemble.ts";
import { dimensionExpression } from "../../src/analytics/sql/call-point-sql.ts";
import { reportCommand } from "../../src/cli/commands/report.ts";
import type { CallEvent } from "../../src/client/event.ts";
import { callPointColumns } from "../../src/worker/analytics-schema.ts";

const start = Date.parse("2026-05-01T00:00:00Z");

function event(index: number, fields: Partial<CallEvent>): CallEvent {
  return {
    time: new Date(start + index * 1000).toISOString(),
    id: `event-${index}`,
    gateway: "chat",
    route: "default",
    mode: "universal",
    step: 0,
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    status: 200,
    ok: true,
    cacheStatus: null,
    latencyMs: 100,
    tokensIn: 10,
    tokensOut: 20,
    cost: null,
    errorCode: null,
    logId: null,
    attempts: 1,
    streamed: false,
    ...fields,
  };
}

const openai = { step: 1, provider: "openai", model: "gpt-4o-mini" };
const events: CallEvent[] = [
  event(0, { mode: "universal" }),
  event(1, { mode: "universal", ...openai }),
  event(2, { mode: "dynamic" }),
  event(3, { mode: "rest" }),
  event(4, { mode: "rest", ...openai }),
  event(5, { mode: "fetch", endpoint: "rest" }),
  event(6, { mode: "fetch", endpoint: "compat" }),
  event(7, { mode: "fetch" }),
];

let directory = "";
let file = "";

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-endpoint-"));
  file = path.join(directory, "events.jsonl");
  await writeFile(file, `${events.map((entry) => JSON.stringify(entry)).join("\n")}\n`);
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function report(...args: string[]): Promise<string> {
  let output = "";
  const command = reportCommand({
    now: () => start + 60_000,
    env: {},
    write: (text) => {
      output += text;
    },
  }).exitOverride();
  await command.parseAsync([file, "--since", "1h", ...args], { from: "user" });
  return output;
}

type Row = [string | number | null | undefined, number];

describe("stepwise report --by endpoint", () => {
  it("counts each generation of a route on its own row: universal, compat, rest", async () => {
    const parsed = JSON.parse(await report("--json", "--by", "endpoint")) as Report;
    expect(parsed.dimensions).toEqual(["gateway", "route", "endpoint"]);
    const rows: Row[] = parsed.groups.map((group) => [group.key.endpoint, group.figures.calls]);
    expect(rows).toEqual([
      ["compat", 2],
      ["rest", 3],
      ["universal", 2],
      // A fetch event that did not record its endpoint (written before the field).
      [null, 1],
    ]);
  });

  it("splits each step by endpoint with --by step,endpoint, and shows the column in the table and CSV", async () => {
    const parsed = JSON.parse(await report("--json", "--by", "step,endpoint")) as Report;
    const restRows = parsed.groups
      .filter((group) => group.key.endpoint === "rest")
      .map((group): Row => [group.key.step, group.figures.calls]);
    expect(restRows).toEqual([
      [0, 2],
      [1, 1],
    ]);
    expect(await report("--by", "endpoint")).toContain("By gateway · route · endpoint");
    const csv = (await report("--csv", "--by", "endpoint")).split("\n");
    expect(csv[0]).toMatch(/,gateway,route,step,provider,model,endpoint,calls,/);
  });

  it("keeps the generations in one table without it", async () => {
    const parsed = JSON.parse(await report("--json", "--by", "step")) as Report;
    expect(parsed.groups.map((group) => [group.key.step, group.figures.calls])).toEqual([
      [0, 6],
      [1, 2],
    ]);
  });
});

describe("--by endpoint on Analytics Engine", () => {
  it("groups by the point's mode column, a compat call to dynamic/<route> counted as compat", () => {
    // A call's last attempt's column, as the calls subquery names it (`call_blob8`).
    const mode = `call_${callPointColumns.mode}`;
    expect(dimensionExpression("endpoint")).toBe(`if(${mode} = 'dynamic', 'compat', ${mode})`);
    expect(withStepAndRoute(["gateway", "route", "endpoint"])).toEqual([
      "gateway",
      "route",
      "step",
      "endpoint",
    ]);
  });
});
