import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockProviders, startMockProviders } from "../../../src/emulator/mocks/index.ts";
import { chat } from "./helpers.ts";

let mocks: MockProviders;
let clock = 1_700_000_000_000;

beforeAll(async () => {
  mocks = await startMockProviders({ providers: ["openai", "anthropic"], now: () => clock });
});
afterAll(() => mocks.close());
beforeEach(() => {
  mocks.clearAttempts();
  mocks.setFaults({ rules: [] });
});

const admin = (provider: string, path: string, init?: RequestInit) =>
  fetch(`${mocks.urls[provider]}__mock/${path}`, init);

describe("admin endpoints", () => {
  it("GET /__mock/attempts lists every provider's attempts in order, with times by the mock clock", async () => {
    await chat(mocks, "openai", { model: "gpt-4o" });
    clock += 250;
    await chat(mocks, "anthropic", { model: "claude-haiku-4-5", stream: true });
    const response = await admin("anthropic", "attempts");
    expect(response.status).toBe(200);
    const { attempts } = (await response.json()) as { attempts: unknown[] };
    expect(attempts).toEqual([
      expect.objectContaining({
        provider: "openai",
        model: "gpt-4o",
        path: "/chat/completions",
        stream: false,
      }),
      expect.objectContaining({
        provider: "anthropic",
        path: "/v1/messages",
        stream: true,
        status: 200,
      }),
    ]);
    const [first, second] = attempts as { receivedAt: number }[];
    expect(second!.receivedAt - first!.receivedAt).toBe(250);
    expect(mocks.attempts).toHaveLength(2);
  });

  it("GET /__mock/attempts?provider= filters", async () => {
    await chat(mocks, "openai", { model: "gpt-4o" });
    await chat(mocks, "anthropic", { model: "claude-haiku-4-5" });
    const body = (await (await admin("openai", "attempts?provider=anthropic")).json()) as {
      attempts: { provider: string }[];
    };
    expect(body.attempts.map((attempt) => attempt.provider)).toEqual(["anthropic"]);
  });

  it("DELETE /__mock/attempts clears the log", async () => {
    await chat(mocks, "openai", { model: "gpt-4o" });
    expect((await admin("openai", "attempts", { method: "DELETE" })).status).toBe(204);
    expect(mocks.attempts).toEqual([]);
  });

  it("PUT /__mock/faults replaces the schedule for every provider", async () => {
    const schedule = { seed: 3, rules: [{ provider: "anthropic", kind: "overloaded", count: 1 }] };
    const response = await admin("openai", "faults", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(schedule),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ schedule });
    expect(await (await admin("anthropic", "faults")).json()).toEqual(schedule);
    expect((await chat(mocks, "anthropic", { model: "claude-haiku-4-5" })).status).toBe(529);
    expect((await chat(mocks, "anthropic", { model: "claude-haiku-4-5" })).status).toBe(200);
    expect(mocks.attempts.map((attempt) => attempt.fault)).toEqual(["overloaded", null]);
  });

  it("PUT /__mock/faults rejects a bad schedule with 400 naming the field, keeping the old one", async () => {
    mocks.setFaults({ rules: [{ kind: "unavailable" }] });
    const response = await admin("openai", "faults", {
      method: "PUT",
      body: JSON.stringify({ rules: [{ kind: "unavailable", count: -1 }] }),
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("fault_schedule_invalid");
    expect(error.message).toContain("rules[0].count");
    expect((await chat(mocks, "openai", { model: "gpt-4o" })).status).toBe(503);
  });

  it("PUT /__mock/faults rejects a body that is not JSON", async () => {
    const response = await admin("openai", "faults", { method: "PUT", body: "rules: []" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: "invalid_json", message: expect.stringContaining("not JSON") },
    });
  });

  it("unknown admin paths get a 404 listing the endpoints; admin calls are not attempts", async () => {
    const response = await admin("openai", "reset", { method: "POST" });
    expect(response.status).toBe(404);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("not_found");
    expect(error.message).toContain("/__mock/attempts");
    expect(mocks.attempts).toEqual([]);
  });
});
