import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CallEvent, callbackRecorder, memoryRecorder } from "../../src/client/index.ts";
import { createProviderLimits } from "../../src/client/limits/provider-limits.ts";
import { jsonLinesRecorder } from "../../src/client/node/index.ts";
import { createTestServer } from "../helpers/test-server.ts";
import {
  compatUrl,
  fixtureJson,
  fixtureText,
  gatewayUrl,
  messages,
  secrets,
  servedHeaders,
  testClient,
} from "./helpers.ts";

const server = createTestServer({
  [gatewayUrl]: {
    response: {
      type: "json",
      body: fixtureJson("providers/openai/response.json"),
      headers: servedHeaders(1, "openai", "gpt-4o-mini"),
    },
  },
  [compatUrl]: {
    response: {
      type: "json",
      body: fixtureJson("client/compat-response.json"),
      headers: { "cf-aig-provider": "openai", "cf-aig-model": "gpt-4o-mini" },
    },
  },
});

describe("the event's time", () => {
  it("is the ISO time the call started, to the millisecond, within a second and across seconds", async () => {
    const { client, clock, recorder } = testClient();
    const times: string[] = [];
    for (const step of [0, 1, 998, 1, 1, 3_600_000 - 1]) {
      clock.advance(step);
      times.push(new Date(clock.now()).toISOString());
      await client.chat({ route: "default", messages });
    }
    expect(recorder.events.map((event) => event.time)).toStrictEqual(times);
  });
});

describe("recorders", () => {
  it("callbackRecorder gets one event per call and the breaker's transitions", async () => {
    const events: CallEvent[] = [];
    const transitions: string[] = [];
    const { client } = testClient(
      {
        recorder: callbackRecorder(
          (event) => {
            events.push(event);
          },
          (transition) => {
            transitions.push(`${transition.provider}→${transition.to}`);
          },
        ),
      },
      { failureThreshold: 1 },
    );
    await client.chat({ route: "default", messages });
    await client.chat({ route: "default", messages });
    expect(events.map((event) => event.id)).toStrictEqual(["call-1", "call-2"]);
    expect(transitions).toStrictEqual(["anthropic→open"]);
  });

  it("never lets a throwing or rejecting recorder break the call", async () => {
    const problems: unknown[] = [];
    const { client } = testClient(
      {
        recorder: {
          record: () => {
            throw new Error("disk full");
          },
          breaker: async () => {
            throw new Error("metrics down");
          },
        },
        onRecorderError: (error) => problems.push((error as Error).message),
      },
      { failureThreshold: 1 },
    );
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served.index).toBe(1);
    await expect.poll(() => problems.length).toBe(2);
    expect(problems.sort()).toStrictEqual(["disk full", "metrics down"]);
  });

  it("survives an onRecorderError that throws too", async () => {
    const { client } = testClient({
      recorder: { record: () => Promise.reject(new Error("nope")) },
      onRecorderError: () => {
        throw new Error("also nope");
      },
    });
    await expect(client.chat({ route: "default", messages })).resolves.toMatchObject({
      served: { index: 1 },
    });
  });
});

describe("the steering lists", () => {
  it("are written only where a guard is at work, empty when it steered nothing", async () => {
    const bare = testClient();
    await bare.client.chat({ route: "default", messages });
    const guarded = testClient({ limits: createProviderLimits() });
    await guarded.client.chat({ route: "default", messages });
    const [plain] = bare.recorder.events;
    expect([plain!.skippedSteps, plain!.demotedSteps, plain!.hedges]).toStrictEqual([
      undefined,
      undefined,
      undefined,
    ]);
    // Limits were at work and skipped nothing: a recorded zero. No health steering, no hedge.
    const [limited] = guarded.recorder.events;
    expect([limited!.skippedSteps, limited!.demotedSteps, limited!.hedges]).toStrictEqual([
      [],
      undefined,
      undefined,
    ]);
  });
});

describe("keys never reach events", () => {
  it("holds for successes, failures, streams, dynamic routes and createGatewayFetch", async () => {
    const recorder = memoryRecorder();
    const { client, fetch } = testClient({ recorder }, { failureThreshold: 1 });
    const errors: unknown[] = [];
    await client.chat({ route: "default", messages, metadata: { user: "u-1" } });
    await client.chat({ route: "default", messages, mode: "dynamic" });
    server.urls[gatewayUrl]!.response = {
      type: "error",
      status: 401,
      body: fixtureJson("providers/openai/error-401.json"),
      headers: servedHeaders(1, "openai", "gpt-4o-mini"),
    };
    await client.chat({ route: "default", messages }).catch((error) => errors.push(error));
    server.urls[gatewayUrl]!.response = {
      type: "sse",
      events: [fixtureText("providers/openai/stream.sse")],
      headers: servedHeaders(1, "openai", "gpt-4o-mini"),
    };
    await client.stream({ route: "default", messages }).collect();
    await fetch(compatUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${secrets.openai}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages }),
    });
    await expect.poll(() => recorder.events.length).toBe(5);

    // The keys did go out (so the scan below is meaningful)...
    expect(JSON.stringify(server.calls)).toContain(secrets.anthropic);
    expect(JSON.stringify(server.calls)).toContain(secrets.gatewayToken);
    // ...and appear nowhere in what was recorded or thrown.
    const recorded = JSON.stringify([recorder.events, recorder.transitions]);
    const thrown = errors
      .map((error) => `${(error as Error).message} ${JSON.stringify(error)}`)
      .join("\n");
    for (const secret of Object.values(secrets)) {
      expect(recorded).not.toContain(secret);
      expect(thrown).not.toContain(secret);
    }
  });
});

describe("jsonLinesRecorder", () => {
  let folder: string | undefined;
  afterEach(async () => {
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  });

  it("appends one JSON line per event and per transition, creating the folder", async () => {
    folder = await mkdtemp(join(tmpdir(), "stepwise-client-"));
    const path = join(folder, "nested", "events.jsonl");
    const transitionsPath = join(folder, "nested", "breaker.jsonl");
    const recorder = jsonLinesRecorder({ path, transitionsPath });
    const { client } = testClient({ recorder }, { failureThreshold: 1 });
    await client.chat({ route: "default", messages });
    await client.chat({ route: "default", messages, eventId: "second" });
    await recorder.flush();

    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    const events = lines.map((line) => JSON.parse(line) as CallEvent);
    expect(events.map((event) => [event.id, event.step, event.provider])).toStrictEqual([
      ["call-1", 1, "openai"],
      ["second", 1, "openai"],
    ]);
    const transitions = (await readFile(transitionsPath, "utf8")).trimEnd().split("\n");
    expect(transitions.map((line) => JSON.parse(line).to)).toStrictEqual(["open"]);
  });
});
