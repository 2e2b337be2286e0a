import { afterEach, describe, expect, it, vi } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import {
  emulatorWith,
  postJson,
  readBody,
  startStub,
  testConfig,
  universalBody,
} from "../helpers.ts";

let emulator: Emulator | undefined;
const stubs: { close(): Promise<void> }[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await emulator?.close();
  emulator = undefined;
  await Promise.all(stubs.splice(0).map((stub) => stub.close()));
});

const streamed = () => universalBody(testConfig(), "open", "default", { stream: true });

describe("streams through the universal endpoint", () => {
  it("breaks the client connection when the serving stream is cut mid-answer", async () => {
    const started = await emulatorWith({
      faults: { rules: [{ provider: "anthropic", kind: "stream-cut" }] },
    });
    emulator = started.emulator;
    const response = await postJson(emulator.gatewayUrl("open"), streamed());
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-step")).toBe("0");
    const body = await readBody(response);
    // The client never sees a clean end: the transfer fails, and the answer has no end marker.
    expect(body.ok).toBe(false);
    expect(body.text).toContain("Mock answer");
    expect(body.text).not.toContain("message_stop");
    const [log] = emulator.logs("open");
    expect(log).toMatchObject({ step: 0, success: false, error: "stream_cut" });
  });

  it("falls back when a stream dies after its head but before any answer byte", async () => {
    const stub = await startStub((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.flushHeaders();
      setImmediate(() => response.socket?.destroy());
    });
    stubs.push(stub);
    const started = await emulatorWith({ upstreams: { anthropic: stub.url } });
    emulator = started.emulator;
    const response = await postJson(emulator.gatewayUrl("open"), streamed());
    expect(response.headers.get("cf-aig-step")).toBe("1");
    expect(response.headers.get("cf-aig-provider")).toBe("openai");
    const body = await readBody(response);
    expect(body.ok).toBe(true);
    expect(body.text).toContain("data: [DONE]");
    expect(stub.requests).toHaveLength(1);
    expect(emulator.logs("open").map((log) => [log.step, log.success, log.error])).toEqual([
      [0, false, "network_error"],
      [1, true, undefined],
    ]);
  });

  it("passes a stream without its end marker on as it came, and logs it as incomplete", async () => {
    const started = await emulatorWith({
      faults: { rules: [{ provider: "anthropic", kind: "missing-done" }] },
    });
    emulator = started.emulator;
    const response = await postJson(emulator.gatewayUrl("open"), streamed());
    const body = await readBody(response);
    expect(body.ok).toBe(true);
    expect(body.text).not.toContain("message_stop");
    expect(emulator.logs("open")[0]).toMatchObject({ success: false, error: "stream_incomplete" });
  });

  it("does not time out a stream that stalls after its first bytes", async () => {
    // The step's timeout and the mock's stall run on fake timers: time moves only when the test
    // says so, so a busy machine cannot fire the timeout before the first byte arrives.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const started = await emulatorWith({
      faults: { rules: [{ provider: "anthropic", kind: "stream-stall", delayMs: 600 }] },
    });
    emulator = started.emulator;
    const steps = streamed();
    // The stall (600 ms) is longer than the timeout (400 ms), which only covers the first byte.
    steps[0]!.config = { requestTimeout: 400 };
    const response = await postJson(emulator.gatewayUrl("open"), steps);
    expect(response.headers.get("cf-aig-step")).toBe("0");
    const reading = readBody(response);
    // The first bytes are through; the stall begins. Past 400 ms a timeout that still covered
    // the stream would abort it; at 600 ms the stall ends and the stream completes.
    vi.advanceTimersByTime(600);
    const body = await reading;
    expect(body.ok).toBe(true);
    expect(body.text).toContain("message_stop");
  });

  it("stops the upstream stream when the client goes away", async () => {
    const started = await emulatorWith({
      faults: { rules: [{ provider: "anthropic", kind: "stream-stall" }] },
    });
    emulator = started.emulator;
    const controller = new AbortController();
    const response = await fetch(emulator.gatewayUrl("open"), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "cf-aig-authorization": "Bearer test-gateway-token",
      },
      body: JSON.stringify(streamed()),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    await expect.poll(() => emulator!.logs("open")[0]?.error).toBe("client_closed");
  });
});
