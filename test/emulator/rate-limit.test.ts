import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { emulatorWith, postJson, testConfig, universalBody } from "./helpers.ts";

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const route = { default: [{ provider: "openai", model: "gpt-4o-mini" }] };
const config = testConfig([
  { id: "fixed", rateLimit: { limit: 10, interval: 600, technique: "fixed" }, routes: route },
  { id: "sliding", rateLimit: { limit: 10, interval: 600, technique: "sliding" }, routes: route },
]);

async function batch(url: string, body: unknown): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < 10; index++) {
    const response = await postJson(url, body);
    await response.text();
    statuses.push(response.status);
  }
  return statuses;
}

describe("rate limiting, as in Cloudflare's example (10 per 10 minutes)", () => {
  it("fixed windows let 10 at 12:09 and 10 at 12:11 through; sliding refuses the second batch", async () => {
    const { emulator: started, clock } = await emulatorWith({ config });
    emulator = started;
    const body = universalBody(config, "fixed");
    clock.set(Date.UTC(2026, 0, 15, 12, 9, 0));
    const fixedFirst = await batch(emulator.gatewayUrl("fixed"), body);
    const slidingFirst = await batch(emulator.gatewayUrl("sliding"), body);
    clock.set(Date.UTC(2026, 0, 15, 12, 11, 0));
    const fixedSecond = await batch(emulator.gatewayUrl("fixed"), body);
    const slidingSecond = await batch(emulator.gatewayUrl("sliding"), body);
    expect([...fixedFirst, ...fixedSecond].every((status) => status === 200)).toBe(true);
    expect(slidingFirst.every((status) => status === 200)).toBe(true);
    expect(slidingSecond.every((status) => status === 429)).toBe(true);
    // Sliding frees up once the first batch is 10 minutes old.
    clock.set(Date.UTC(2026, 0, 15, 12, 19, 0, 1));
    const later = await postJson(emulator.gatewayUrl("sliding"), body);
    expect(later.status).toBe(200);
  });

  it("refuses with Cloudflare's 429 body and does not forward the request", async () => {
    const { emulator: started } = await emulatorWith({ config });
    emulator = started;
    const body = universalBody(config, "fixed");
    await batch(emulator.gatewayUrl("fixed"), body);
    const attemptsBefore = emulator.mocks!.attempts.length;
    const refused = await postJson(emulator.gatewayUrl("fixed"), body);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      success: false,
      result: [],
      messages: [],
      error: [{ code: 2003, message: "Rate limited" }],
      name: "AiGatewayError",
      httpCode: 429,
      internalCode: 2003,
    });
    expect(emulator.mocks!.attempts.length).toBe(attemptsBefore);
  });
});
