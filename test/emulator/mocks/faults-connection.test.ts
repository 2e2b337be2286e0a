import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import {
  canonicalAnswer,
  type FaultRule,
  type MockProviders,
  startMockProviders,
} from "../../../src/emulator/mocks/index.ts";
import { getProvider } from "../../../src/providers/index.ts";
import { chat, formatCases, readError, readStream } from "./helpers.ts";

let mocks: MockProviders;

beforeAll(async () => {
  mocks = await startMockProviders({ providers: formatCases.map((c) => c.provider) });
});
afterAll(() => mocks.close());
beforeEach(() => {
  mocks.clearAttempts();
  mocks.setFaults({ rules: [] });
});

describe.each(formatCases)("$provider connection and stream faults", ({ provider, model }) => {
  const fullText = canonicalAnswer(provider, model);
  const faulted = (kind: FaultRule["kind"], extra: Partial<FaultRule> = {}) =>
    mocks.setFaults({ rules: [{ provider, kind, ...extra }] });

  it("connection-reset: the socket is destroyed before any header, so fetch rejects", async () => {
    faulted("connection-reset");
    await expect(chat(mocks, provider, { model })).rejects.toThrow();
    expect(mocks.attempts[0]).toMatchObject({ status: 0, fault: "connection-reset", model });
    expect(mocks.attempts[0]?.respondedAt).toBeUndefined();
  });

  it("no-response: nothing comes back until the client gives up", async () => {
    faulted("no-response");
    const controller = new AbortController();
    const call = chat(mocks, provider, { model, signal: controller.signal });
    // Give up once the mock holds the request: a fixed delay can run out on a busy machine
    // before the request has even arrived.
    await expect.poll(() => mocks.attempts.length).toBe(1);
    controller.abort();
    await expect(call).rejects.toThrow(/aborted|timeout/i);
    expect(mocks.attempts[0]).toMatchObject({ status: 0, fault: "no-response" });
  });

  it("slow-first-byte: headers wait for delayMs, then the normal answer", async () => {
    faulted("slow-first-byte", { delayMs: 50 });
    const response = await chat(mocks, provider, { model });
    const result = getProvider(provider).parseResponse(await response.text(), model);
    expect(result.text).toBe(fullText);
    const [attempt] = mocks.attempts;
    expect(attempt).toMatchObject({ status: 200, fault: "slow-first-byte" });
    expect(attempt!.respondedAt! - attempt!.receivedAt).toBeGreaterThanOrEqual(45);
  });

  it("stream-cut: part of the stream, then a dropped connection and no done", async () => {
    faulted("stream-cut");
    const reading = await readStream(
      provider,
      await chat(mocks, provider, { model, stream: true }),
    );
    expect(reading.failure).toBeDefined();
    expect(reading.done).toBe(false);
    expect(reading.text.length).toBeGreaterThan(0);
    expect(fullText.startsWith(reading.text)).toBe(true);
    expect(reading.text).not.toBe(fullText);
    expect(mocks.attempts[0]).toMatchObject({ status: 200, stream: true, fault: "stream-cut" });
  });

  it("stream-cut on a plain request: the body ends early and reading it fails", async () => {
    faulted("stream-cut");
    const response = await chat(mocks, provider, { model });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });

  it("stream-stall without delayMs: part of the stream, then silence until the client gives up", async () => {
    faulted("stream-stall");
    const controller = new AbortController();
    const response = await chat(mocks, provider, {
      model,
      stream: true,
      signal: controller.signal,
    });
    // Give up a little after the first text arrives: the rest never comes.
    const reading = await readStream(provider, response, () =>
      setTimeout(() => controller.abort(), 30),
    );
    expect(reading.failure).toBeDefined();
    expect(reading.done).toBe(false);
    expect(reading.text.length).toBeGreaterThan(0);
    expect(fullText.startsWith(reading.text)).toBe(true);
  });

  it("stream-stall with delayMs: the stream pauses, then completes", async () => {
    faulted("stream-stall", { delayMs: 20 });
    const reading = await readStream(
      provider,
      await chat(mocks, provider, { model, stream: true }),
    );
    expect(reading.text).toBe(fullText);
    expect(reading.done).toBe(true);
  });

  it("malformed-chunk: one event is not JSON, so the adapter yields an error delta", async () => {
    faulted("malformed-chunk");
    const reading = await readStream(
      provider,
      await chat(mocks, provider, { model, stream: true }),
    );
    expect(reading.errors).toEqual([
      {
        type: "error",
        error: expect.objectContaining({ type: "invalid_stream_event", status: 502 }),
      },
    ]);
    expect(reading.text).toBe(fullText);
  });

  it("malformed-chunk on a plain request: a body that is not JSON", async () => {
    faulted("malformed-chunk");
    const text = await (await chat(mocks, provider, { model })).text();
    expect(() => getProvider(provider).parseResponse(text, model)).toThrow(/not JSON/);
  });

  it("missing-done: the whole answer, a clean end, but no end marker", async () => {
    faulted("missing-done");
    const reading = await readStream(
      provider,
      await chat(mocks, provider, { model, stream: true }),
    );
    expect(reading.text).toBe(fullText);
    expect(reading.failure).toBeUndefined();
    expect(reading.done).toBe(false);
  });

  it("missing-done does not match plain requests, so it waits for the next stream", async () => {
    faulted("missing-done", { count: 1 });
    expect((await chat(mocks, provider, { model })).status).toBe(200);
    const reading = await readStream(
      provider,
      await chat(mocks, provider, { model, stream: true }),
    );
    expect(reading.done).toBe(false);
    expect(mocks.attempts.map((attempt) => attempt.fault)).toEqual([null, "missing-done"]);
  });

  it("stream-error: part of the answer, then an error event in the provider's format", async () => {
    faulted("stream-error");
    const reading = await readStream(
      provider,
      await chat(mocks, provider, { model, stream: true }),
    );
    expect(reading.failure).toBeUndefined();
    expect(reading.text.length).toBeGreaterThan(0);
    expect(fullText.startsWith(reading.text)).toBe(true);
    expect(reading.text).not.toBe(fullText);
    expect(reading.errors).toEqual([
      {
        type: "error",
        error: expect.objectContaining({
          message: expect.stringContaining("[mock fault: stream-error]"),
        }),
      },
    ]);
    expect(reading.done).toBe(false);
    expect(reading.deltas.some((delta) => delta.type === "finish")).toBe(false);
  });

  it("stream-unfinished: part of the answer and a clean end, with no finish and no end marker", async () => {
    faulted("stream-unfinished");
    const reading = await readStream(
      provider,
      await chat(mocks, provider, { model, stream: true }),
    );
    expect(reading.failure).toBeUndefined();
    expect(reading.errors).toEqual([]);
    expect(reading.text.length).toBeGreaterThan(0);
    expect(fullText.startsWith(reading.text)).toBe(true);
    expect(reading.text).not.toBe(fullText);
    expect(reading.done).toBe(false);
    expect(reading.deltas.some((delta) => delta.type === "finish")).toBe(false);
  });

  it("stream-error and stream-unfinished do not match plain requests", async () => {
    mocks.setFaults({
      rules: [
        { provider, kind: "stream-error" },
        { provider, kind: "stream-unfinished" },
      ],
    });
    const result = getProvider(provider).parseResponse(
      await (await chat(mocks, provider, { model })).text(),
      model,
    );
    expect(result.text).toBe(fullText);
    expect(mocks.attempts[0]?.fault).toBeNull();
  });

  it("prefill-refused: 400 for a request that ends with an assistant message, others healthy", async () => {
    faulted("prefill-refused");
    const refused = await chat(mocks, provider, { model, stream: true, prefill: "Mock answer" });
    expect(refused.status).toBe(400);
    expect((await readError(provider, refused)).message).toContain(
      "does not support assistant message prefill",
    );
    const reading = await readStream(
      provider,
      await chat(mocks, provider, { model, stream: true }),
    );
    expect(reading.text).toBe(fullText);
    expect(mocks.attempts.map((attempt) => attempt.fault)).toEqual(["prefill-refused", null]);
  });
});

describe("close()", () => {
  it("ends held and stalled connections and pending timers, so nothing hangs", async () => {
    // Fake timers: the 60 s delay can only pass if the test moves time, which it never does, so
    // close() resolving at all shows it did not wait for the delay, however busy the machine.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const own = await startMockProviders({
      providers: ["openai", "anthropic"],
      faults: {
        rules: [
          { provider: "openai", kind: "no-response" },
          { provider: "anthropic", kind: "slow-first-byte", delayMs: 60_000 },
        ],
      },
    });
    // Settled into values at once, so the rejections that close() causes are never unhandled.
    const held = chat(own, "openai", { model: "gpt-4o" }).catch((error: unknown) => error);
    const slow = chat(own, "anthropic", { model: "claude-haiku-4-5" }).catch(
      (error: unknown) => error,
    );
    await expect.poll(() => own.attempts.filter((a) => a.fault !== null)).toHaveLength(2);
    await own.close();
    expect(await held).toBeInstanceOf(TypeError);
    expect(await slow).toBeInstanceOf(TypeError);
    expect(own.attempts.map((attempt) => attempt.status)).toEqual([0, 0]);
  });

  it("a stalled stream's reader fails when the mocks close", async () => {
    const own = await startMockProviders({
      providers: ["openai"],
      faults: { rules: [{ kind: "stream-stall" }] },
    });
    const response = await chat(own, "openai", { model: "gpt-4o", stream: true });
    const reading = readStream("openai", response);
    await own.close();
    const result = await reading;
    expect(result.failure).toBeDefined();
    expect(result.done).toBe(false);
  });
});
