/**
 * docs/analytics.md's `stepwise report` commands for its other sources, run as written: the live
 * Analytics Engine queries against the SQL API stand-in (`tools/fakes`) served on 127.0.0.1 and
 * named by `CLOUDFLARE_BASE_URL`, the gateway's logs against `stepwise dev`, and a saved export.
 * Where the docs write a placeholder (`…` for a token or an account id), the test adds the value
 * after it, said out loud in `append`.
 */
import { copyFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { loadConfig } from "../../src/config/index.ts";
import { compileUniversalRequest } from "../../src/routes/index.ts";
import { createFakeSqlApi, type FakeSqlApi } from "../../tools/fakes/analytics-engine-sql-api.ts";
import { asStored, callPointOf } from "../../tools/fakes/call-points.ts";
import { generateEvents } from "../../tools/scripts/generate-events.ts";
import {
  documented,
  makeSandbox,
  projectRoot,
  runDocumented,
  type Sandbox,
  startDocumented,
} from "./documented.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const apiToken = "docs-test-analytics-token";
let sandbox: Sandbox;
let fake: FakeSqlApi;
let server: Server;
let baseUrl: string;

/** The fake SQL API (a fetch function) behind a real HTTP server on a port chosen now. */
function serve(api: FakeSqlApi): Promise<Server> {
  const httpServer = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const answer = await api.fetch(new URL(request.url ?? "/", api.baseURL).toString(), {
      method: request.method ?? "GET",
      headers: request.headers as Record<string, string>,
      body: Buffer.concat(chunks).toString("utf8"),
    });
    response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "" });
    response.end(await answer.text());
  });
  return new Promise((resolve) => httpServer.listen(0, "127.0.0.1", () => resolve(httpServer)));
}

beforeAll(async () => {
  sandbox = await makeSandbox();
  fake = createFakeSqlApi({ accountId, apiToken, dataset: "stepwise_events" });
  const day = 86_400_000;
  const events = generateEvents({
    count: 2_000,
    seed: 9,
    start: Date.now() - 20 * day,
    spanMs: 20 * day,
  });
  await fake.load(
    [...events].map(asStored).map((event, index) => ({
      time: Date.parse(event.time),
      point: callPointOf(event, { plan: index % 3 === 0 ? "free" : "pro" }),
    })),
  );
  server = await serve(fake);
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4`;
  await copyFile(
    path.join(projectRoot, "test/__fixtures__/analytics/ae-export.json"),
    path.join(sandbox.directory, "export.json"),
  );
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  fake?.close();
  await sandbox?.remove();
});

const live = { env: () => ({ CLOUDFLARE_BASE_URL: baseUrl }) };

describe("stepwise report --source analytics-engine, live (docs/analytics.md)", () => {
  it("reports the last 30 days from the SQL API, with the token the export sets", async () => {
    const result = await runDocumented(
      [
        documented("export CLOUDFLARE_API_TOKEN=…"),
        documented(
          "npx stepwise report --source analytics-engine --account-id 0123456789abcdef0123456789abcdef --since 30d",
        ),
      ],
      { sandbox, env: live.env(), append: [`CLOUDFLARE_API_TOKEN=${apiToken}`, undefined] },
    );
    expect(result.code, result.output).toBe(0);
    expect(result.stdout).toMatch(/^Step rates · /);
    expect(result.stdout).toMatch(/· 2,000 calls counted/);
    expect(fake.queries.length).toBeGreaterThan(0);
  });

  it("groups by route and a metadata key, as CSV", async () => {
    const result = await runDocumented(
      documented(
        "npx stepwise report --source analytics-engine --account-id … --since 7d --by route,metadata.plan --csv",
      ),
      {
        sandbox,
        env: { ...live.env(), CLOUDFLARE_API_TOKEN: apiToken },
        append: `--account-id ${accountId}`,
      },
    );
    expect(result.code, result.output).toBe(0);
    const [header, ...rows] = result.stdout.trim().split("\n");
    expect(header).toMatch(/route/);
    expect(header).toMatch(/plan/);
    expect(rows.some((row) => row.includes("free"))).toBe(true);
  });

  it("compares with the hour before and exits 1 exactly when a threshold is crossed", async () => {
    const result = await runDocumented(
      documented(
        "npx stepwise report --source analytics-engine --account-id … --dataset stepwise_events --since 1h --compare previous --fail-below availability=0.99 --fail-above fallback-rate=0.05",
      ),
      {
        sandbox,
        env: { ...live.env(), CLOUDFLARE_API_TOKEN: apiToken },
        append: `--account-id ${accountId}`,
      },
    );
    expect([0, 1]).toContain(result.code);
    if (result.code === 1) expect(result.stderr).toMatch(/threshold.*crossed/);
    else expect(result.stderr).not.toMatch(/threshold.*crossed/);
  });
});

describe("stepwise report export.json --source analytics-engine (docs/analytics.md)", () => {
  it("reads a file saved from the SQL API", async () => {
    const result = await runDocumented(
      documented("npx stepwise report export.json --source analytics-engine"),
      {
        sandbox,
      },
    );
    expect(result.code, result.output).toBe(0);
    expect(result.stdout).toMatch(/^Step rates · export\.json \(analytics-engine\)/);
  });
});

describe("stepwise report --source logs against stepwise dev (docs/analytics.md)", () => {
  it("reads the emulator's gateway logs as calls", async () => {
    const dev = startDocumented(documented("npx stepwise dev --stack dev"), {
      sandbox,
      append: "--port 0",
    });
    onTestFinished(() => dev.stop().then(() => undefined));
    const [, universal] = await dev.waitFor(/gateway chat-prod[\s\S]*?universal\s+(\S+)/);
    const [, rest] = await dev.waitFor(/REST API\s+(\S+)/);
    const { config } = await loadConfig({ stack: "dev", cwd: sandbox.directory });
    const steps = compileUniversalRequest(
      config.gateways[0]!.routes.default!,
      { messages: [{ role: "user", content: "Hi" }] },
      { keyLookup: () => "any-provider-key" },
    );
    for (let call = 0; call < 3; call++) {
      const response = await fetch(universal!, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "cf-aig-authorization": "Bearer stepwise-dev-token",
        },
        body: JSON.stringify(steps),
      });
      expect(response.status).toBe(200);
      await response.text();
    }
    const result = await runDocumented(
      documented(
        "npx stepwise report --source logs --gateway chat-prod --account-id 0123456789abcdef0123456789abcdef --base-url http://127.0.0.1:8787/client/v4",
      ),
      {
        sandbox,
        env: { CLOUDFLARE_API_TOKEN: "stepwise-dev-token" },
        append: `--base-url ${rest}`,
      },
    );
    expect(result.code, result.output).toBe(0);
    expect(result.stdout).toMatch(/· 3 calls counted/);
  });
});
