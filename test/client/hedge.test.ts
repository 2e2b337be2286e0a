import { describe, expect, it, vi } from "vitest";
import type { RouteConfig } from "../../src/config/schema.ts";
import { heldGateway, onFakeTime } from "../helpers/held-gateway.ts";
import { fixtureAnswer, messages, prices, routes, testClient } from "./helpers.ts";

function hedgedRoutes(hedge: RouteConfig["hedge"]): Record<string, RouteConfig> {
  return { ...routes, default: { ...routes.default!, hedge } };
}

function setup(
  hedge: RouteConfig["hedge"] = { afterMs: 2000, maxExtraCostPerHour: 1 },
  withPrices = true,
) {
  const stub = heldGateway();
  // The call's clock follows the fake timers.
  const test = testClient({
    fetch: stub.fetch,
    now: () => Date.now(),
    routes: hedgedRoutes(hedge),
    prices: withPrices ? prices : undefined,
  });
  return { ...test, stub };
}

/** The prompt's estimated input cost on `model` (about 4 characters a token). */
function promptCost(key: keyof typeof prices): number {
  const characters = messages.reduce((sum, message) => sum + message.content.length, 0);
  return (Math.ceil(characters / 4) * prices[key].input) / 1_000_000;
}

onFakeTime(() => {
  const stub = heldGateway();
  const { client } = testClient({
    fetch: stub.fetch,
    routes: hedgedRoutes({ afterMs: 1, maxExtraCostPerHour: 0 }),
  });
  return { client, stub };
}, ["chat", "stream"]);

describe("hedged requests", () => {
  it("sends the steps after the first when no answer started in time, keeps the hedge's and aborts the first", async () => {
    const { client, stub, recorder } = setup();
    const call = client.chat({ route: "default", messages });
    await vi.advanceTimersByTimeAsync(1999);
    expect(stub.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(stub.requests.map((request) => request.steps)).toEqual([
      ["anthropic", "openai", "workers-ai"],
      ["openai", "workers-ai"],
    ]);
    stub.requests[1]!.answer();
    const answer = await call;
    // The hedge's `cf-aig-step: 0` is the route's step 1.
    expect(answer.served).toMatchObject({ index: 1, provider: "openai", attempts: 2 });
    expect(stub.requests[0]!.signal?.aborted).toBe(true);
    expect(recorder.events[0]).toMatchObject({
      ok: true,
      step: 1,
      provider: "openai",
      attempts: 2,
    });
    expect(recorder.events[0]!.hedges).toEqual([
      {
        step: 1,
        provider: "openai",
        model: "gpt-4o-mini",
        afterMs: 2000,
        sent: true,
        kept: "hedge",
        extraCost: promptCost("anthropic/claude-sonnet-4-5"),
      },
    ]);
    // The first request's step lost the race: it counts as passed over, as when the gateway moves on.
    expect(recorder.events[0]!.failedSteps).toEqual([
      {
        step: 0,
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        status: null,
        errorCode: null,
        at: "request",
      },
    ]);
  });

  it("hedges a stream whose headers have not come, and streams the hedge's answer", async () => {
    const { client, stub, recorder } = setup();
    const stream = client.stream({ route: "default", messages });
    const result = stream.collect();
    await vi.advanceTimersByTimeAsync(2000);
    expect(stub.requests[1]!.steps).toEqual(["openai", "workers-ai"]);
    stub.requests[1]!.answer();
    const answer = await result;
    expect(answer.text).toBe(fixtureAnswer);
    expect(answer.served).toMatchObject({ index: 1, provider: "openai", attempts: 2 });
    expect(stub.requests[0]!.signal?.aborted).toBe(true);
    expect(recorder.events[0]).toMatchObject({ streamed: true, step: 1 });
    expect(recorder.events[0]!.hedges).toEqual([expect.objectContaining({ kept: "hedge" })]);
  });

  it("sends no hedge when the first answer starts in time", async () => {
    const { client, stub, recorder } = setup();
    const call = client.chat({ route: "default", messages });
    await vi.advanceTimersByTimeAsync(1500);
    stub.requests[0]!.answer();
    const answer = await call;
    await vi.advanceTimersByTimeAsync(5000);
    expect(stub.requests).toHaveLength(1);
    expect(answer.served).toMatchObject({ index: 0, attempts: 1 });
    // Recorded as no hedge due (not absent): a report counts the call among the route's unhedged.
    expect(recorder.events[0]!.hedges).toEqual([]);
  });

  it("keeps the first request's answer when it starts before the hedge's, and aborts the hedge", async () => {
    const { client, stub, recorder } = setup();
    const call = client.chat({ route: "default", messages });
    await vi.advanceTimersByTimeAsync(2000);
    stub.requests[0]!.answer();
    const answer = await call;
    expect(answer.served).toMatchObject({ index: 0, provider: "anthropic", attempts: 2 });
    expect(stub.requests[1]!.signal?.aborted).toBe(true);
    expect(recorder.events[0]!.hedges).toEqual([
      expect.objectContaining({
        sent: true,
        kept: "primary",
        extraCost: promptCost("openai/gpt-4o-mini"),
      }),
    ]);
  });

  it("waits for the other request when one fails, so an error answer never wins", async () => {
    const { client, stub } = setup();
    const call = client.chat({ route: "default", messages });
    await vi.advanceTimersByTimeAsync(2000);
    stub.requests[1]!.answer({ status: 503 });
    await vi.advanceTimersByTimeAsync(100);
    stub.requests[0]!.answer();
    expect((await call).served.provider).toBe("anthropic");
  });

  it("stops hedging once the dropped answers of the last hour would pass the route's cap", async () => {
    // Room for one dropped anthropic prompt, not for a second hedge to openai after it.
    const cap = promptCost("anthropic/claude-sonnet-4-5") + promptCost("openai/gpt-4o-mini") / 2;
    const { client, stub, recorder } = setup({ afterMs: 2000, maxExtraCostPerHour: cap });
    for (let round = 0; round < 2; round++) {
      const call = client.chat({ route: "default", messages });
      await vi.advanceTimersByTimeAsync(2000);
      stub.requests.at(-1)!.answer();
      await call;
    }
    // The first hedge won (anthropic's prompt dropped); the second was not sent.
    expect(stub.requests).toHaveLength(3);
    expect(recorder.events[1]!.hedges).toEqual([
      expect.objectContaining({ sent: false, reason: "cost_cap", kept: "primary", extraCost: 0 }),
    ]);
    expect(recorder.events[1]).toMatchObject({ attempts: 1, step: 0 });

    // An hour later the ledger is empty again.
    await vi.advanceTimersByTimeAsync(3_600_000);
    const call = client.chat({ route: "default", messages });
    await vi.advanceTimersByTimeAsync(2000);
    expect(stub.requests).toHaveLength(5);
    stub.requests[4]!.answer();
    await call;
  });

  it("never sends a hedge it cannot price", async () => {
    const { client, stub, recorder } = setup(undefined, false);
    const call = client.chat({ route: "default", messages });
    await vi.advanceTimersByTimeAsync(2000);
    stub.requests[0]!.answer();
    await call;
    expect(stub.requests).toHaveLength(1);
    expect(recorder.events[0]!.hedges).toEqual([
      expect.objectContaining({ sent: false, reason: "unpriced" }),
    ]);
  });

  it("refuses hedge settings that are not numbers, naming the route and the fix", async () => {
    const { client } = setup({ afterMs: 0, maxExtraCostPerHour: -1 });
    await expect(client.chat({ route: "default", messages })).rejects.toThrow(
      /route "default": hedge\.afterMs must be a whole number.*hedge\.maxExtraCostPerHour must be USD per hour/,
    );
  });
});
