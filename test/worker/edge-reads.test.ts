/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * What a proxied call costs at the edge: at most one KV read per KV key (the app's token record
 * and one record per provider, however many steps name it), and no KV write at all.
 */
import { describe, expect, it } from "vitest";
import { accountId, createHarness } from "./harness.ts";

describe("KV traffic of a proxied call", () => {
  it("reads each key once at most and writes nothing", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-reads-0000001");
    await harness.rotate("anthropic", "sk-ant-reads-000000002");
    const app = await harness.createApp();
    await harness.advance(2_000);
    const readsBefore = harness.kv.reads.length;
    const writesBefore = harness.kv.attempts.length;
    const step = (provider: string) => ({
      provider,
      endpoint: "chat/completions",
      query: { model: "m", messages: [] },
    });
    const response = await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: [step("openai"), step("anthropic"), step("openai")],
    });
    expect(response.status).toBe(401);
    const reads = harness.kv.reads.slice(readsBefore).map((read) => read.key);
    expect(new Set(reads).size).toBe(reads.length);
    // The app's record and one record per distinct provider.
    expect(reads).toHaveLength(3);
    expect(harness.kv.attempts.length).toBe(writesBefore);
  });
});
