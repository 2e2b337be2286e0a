import { describe, expect, it } from "vitest";
import {
  createHealthSteering,
  probationShare,
  readHealthDocument,
} from "../../src/client/health/health-steering.ts";
import type { FetchFunction } from "../../src/client/index.ts";
import { createTestServer } from "../helpers/test-server.ts";
import { fixtureJson, ManualClock, messages, servedHeaders, testClient } from "./helpers.ts";

const workerUrl = "https://stepwise-keys.test";
const healthUrl = `${workerUrl}/health`;
const appToken = "sw_app1_SECRET-health";

type State = "healthy" | "degraded" | "down";

/** One model of a `GET /health` document, exactly as docs/worker.md shapes it. */
function model(
  provider: string,
  name: string,
  state: State,
  probation: { startedAt: string; endsAt: string; initialShare: number } | null = null,
) {
  return {
    provider,
    model: name,
    state,
    reason: state === "healthy" ? null : "3× slower than usual (1200 ms, usually 380 ms)",
    since: "2026-05-01T11:45:00.000Z",
    consecutive: 2,
    checkedAt: "2026-05-01T11:59:00.000Z",
    latencyMs: state === "down" ? null : 412,
    usualLatencyMs: 380,
    slowMs: 5000,
    httpStatus: state === "down" ? 0 : 200,
    probation,
  };
}

/** A `GET /health` document with these models. */
function document(models: ReturnType<typeof model>[], probesEnabled = true) {
  const providers: Record<string, { state: State; models: string[] }> = {};
  for (const entry of models) {
    const known = providers[entry.provider];
    const worst = [known?.state ?? "healthy", entry.state].includes("down")
      ? "down"
      : [known?.state, entry.state].includes("degraded")
        ? "degraded"
        : "healthy";
    providers[entry.provider] = { state: worst, models: [...(known?.models ?? []), entry.model] };
  }
  return {
    probesEnabled,
    generatedAt: probesEnabled ? "2026-05-01T11:59:00.000Z" : null,
    probationSeconds: 900,
    models,
    providers,
  };
}

const healthyAll = [
  model("anthropic", "claude-sonnet-4-5", "healthy"),
  model("openai", "gpt-4o-mini", "healthy"),
  model("workers-ai", "@cf/meta/llama-3.1-8b-instruct", "healthy"),
];

const server = createTestServer({
  [healthUrl]: {
    response: {
      type: "json",
      body: document(healthyAll),
      headers: { "cache-control": "private, max-age=60", etag: '"v1"' },
    },
  },
});

/** A gateway that answers from the first step of each universal request and records the order. */
function gateway() {
  const sent: string[][] = [];
  const fetch: FetchFunction = async (_url, init) => {
    const steps = (JSON.parse(String(init?.body)) as { provider: string }[]).map(
      (step) => step.provider,
    );
    sent.push(steps);
    const provider = steps[0]!;
    const model = {
      anthropic: "claude-sonnet-4-5",
      openai: "gpt-4o-mini",
      "workers-ai": "@cf/meta/llama-3.1-8b-instruct",
    }[provider]!;
    return new Response(JSON.stringify(fixtureJson(`providers/${provider}/response.json`)), {
      headers: servedHeaders(0, provider, model),
    });
  };
  return { sent, fetch };
}

function setup(random = () => 0.5) {
  const clock = new ManualClock();
  const errors: unknown[] = [];
  const health = createHealthSteering({
    url: workerUrl,
    token: appToken,
    now: clock.now,
    random,
    onError: (error) => errors.push(error),
  });
  const stub = gateway();
  const test = testClient({ fetch: stub.fetch, now: clock.now, health });
  return { ...test, clock, health, stub, errors };
}

describe("health in the order", () => {
  it("reads GET /health with the app token and keeps the route's order while all are healthy", async () => {
    const { client, health, stub, recorder } = setup();
    await health.refresh();
    expect(server.callsTo(healthUrl)[0]!.headers.authorization).toBe(`Bearer ${appToken}`);
    await client.chat({ route: "default", messages });
    expect(stub.sent[0]).toEqual(["anthropic", "openai", "workers-ai"]);
    // Recorded as none demoted (not absent): a report counts it as a zero.
    expect(recorder.events[0]!.demotedSteps).toEqual([]);
  });

  it("demotes degraded steps behind healthy ones and down steps behind those, and records it", async () => {
    server.urls[healthUrl]!.response = {
      type: "json",
      body: document([
        model("anthropic", "claude-sonnet-4-5", "down"),
        model("openai", "gpt-4o-mini", "degraded"),
      ]),
    };
    const { client, health, stub, recorder } = setup();
    await health.refresh();
    const answer = await client.chat({ route: "default", messages });
    // workers-ai is not in the document: unknown, not unhealthy, so it keeps its place first.
    expect(stub.sent[0]).toEqual(["workers-ai", "openai", "anthropic"]);
    expect(answer.served).toMatchObject({ index: 2, provider: "workers-ai" });
    expect(recorder.events[0]!.demotedSteps).toEqual([
      { step: 0, provider: "anthropic", model: "claude-sonnet-4-5", reason: "down" },
      { step: 1, provider: "openai", model: "gpt-4o-mini", reason: "degraded" },
    ]);
    expect(recorder.events[0]!.step).toBe(2);
  });

  it("gives a recovered model on probation a share that grows linearly to its full share", async () => {
    const probation = {
      startedAt: "2026-05-01T11:55:00.000Z",
      endsAt: "2026-05-01T12:10:00.000Z",
      initialShare: 0.1,
    };
    server.urls[healthUrl]!.response = {
      type: "json",
      body: document([
        model("anthropic", "claude-sonnet-4-5", "healthy", probation),
        ...healthyAll.slice(1),
      ]),
    };
    // 12:00 is a third of the way: share = 0.1 + 0.9 × 1/3 = 0.4.
    let draw = 0.39;
    const { client, health, stub, recorder, clock } = setup(() => draw);
    await health.refresh();
    const reading = health.reading()!.models.get("anthropic/claude-sonnet-4-5");
    expect(probationShare(reading, clock.now())).toBeCloseTo(0.4);
    await client.chat({ route: "default", messages });
    expect(stub.sent[0]).toEqual(["anthropic", "openai", "workers-ai"]);

    draw = 0.41;
    await client.chat({ route: "default", messages });
    // Outside its share, anthropic goes behind the next healthy step.
    expect(stub.sent[1]).toEqual(["openai", "anthropic", "workers-ai"]);
    expect(recorder.events[1]!.demotedSteps).toEqual([
      { step: 0, provider: "anthropic", model: "claude-sonnet-4-5", reason: "probation" },
    ]);

    // At endsAt it takes its full share whatever the draw (the document is re-read, unchanged).
    clock.advance(10 * 60_000);
    draw = 0.99;
    await client.chat({ route: "default", messages });
    expect(stub.sent[2]).toEqual(["anthropic", "openai", "workers-ai"]);
  });

  it("re-reads the document after max-age with If-None-Match, keeping it on a 304", async () => {
    server.urls[healthUrl]!.response = (call) =>
      call.headers["if-none-match"] === '"v2"'
        ? { type: "error", status: 304, headers: { etag: '"v2"', "cache-control": "max-age=60" } }
        : {
            type: "json",
            body: document([model("anthropic", "claude-sonnet-4-5", "down")]),
            headers: { etag: '"v2"', "cache-control": "private, max-age=60" },
          };
    const { client, health, clock, stub } = setup();
    await health.refresh();
    await client.chat({ route: "default", messages });
    clock.advance(59_000);
    await client.chat({ route: "default", messages });
    expect(server.callsTo(healthUrl)).toHaveLength(1);
    clock.advance(1_000);
    // A stale document starts a read in the background; the call uses the one it has.
    await client.chat({ route: "default", messages });
    await health.refresh();
    expect(server.callsTo(healthUrl)).toHaveLength(2);
    expect(server.callsTo(healthUrl)[1]!.headers["if-none-match"]).toBe('"v2"');
    await client.chat({ route: "default", messages });
    expect(stub.sent.every((steps) => steps[0] === "openai")).toBe(true);
  });

  it("keeps the route's order before a first document, while probes are off, and after a failed read", async () => {
    server.urls[healthUrl]!.response = {
      type: "error",
      status: 401,
      body: { error: { code: "unauthorized", message: "no" } },
    };
    const { client, health, stub, errors } = setup();
    await client.chat({ route: "default", messages });
    await health.refresh();
    expect(errors[0]).toBeInstanceOf(Error);
    expect(String(errors[0])).toMatch(/HTTP 401.*health token/);
    await client.chat({ route: "default", messages });

    server.urls[healthUrl]!.response = {
      type: "json",
      body: document([model("anthropic", "claude-sonnet-4-5", "down")], false),
    };
    const off = setup();
    await off.health.refresh();
    await off.client.chat({ route: "default", messages });
    expect([...stub.sent, ...off.stub.sent].map((steps) => steps[0])).toEqual([
      "anthropic",
      "anthropic",
      "anthropic",
    ]);
  });

  it("reads only what it can of a document and refuses what is not one", () => {
    const reading = readHealthDocument({
      probesEnabled: true,
      generatedAt: "2026-05-01T11:59:00.000Z",
      models: [model("openai", "gpt-4o-mini", "degraded"), { provider: "x", state: "sideways" }],
    });
    expect([...reading.models.keys()]).toEqual(["openai/gpt-4o-mini"]);
    expect(() => readHealthDocument({ ok: true })).toThrow(/points at the companion Worker/);
    expect(() => createHealthSteering({ url: "stepwise-keys.test" })).toThrow(/http\(s\) URL/);
  });
});
