import { describe, expect, it } from "vitest";
import { measureClientBundle } from "../../tools/scripts/client-size.ts";

/**
 * Modules the client may contain: its own (not the Node-only entry), the dependency-free folders,
 * and the SSE parser the build inlines.
 */
const allowed =
  /^(consumer|src\/(client\/(?!node\/)|providers\/|routes\/|errors\/)|node_modules\/eventsource-parser\/)/;

function leaks(report: { chunks: readonly { inputs: readonly string[] }[] }): string[] {
  return report.chunks.flatMap((chunk) => chunk.inputs).filter((input) => !allowed.test(input));
}

describe("the client bundle", () => {
  it("has no run-time dependencies: only src modules and the inlined SSE parser, nothing external", async () => {
    const report = await measureClientBundle("stream");
    expect(report.externalImports).toStrictEqual([]);
    expect(leaks(report)).toStrictEqual([]);
    const all = report.chunks.flatMap((chunk) => chunk.inputs);
    expect(all).toContain("node_modules/eventsource-parser/dist/index.js");
    expect(all.some((input) => input.startsWith("src/config/"))).toBe(false);
  });

  it("loads a small core for an app that only chats, the rest on first use", async () => {
    const report = await measureClientBundle("chat");
    // Issue 15's budget: 6 kB min+gz (1 kB = 1,000 bytes), the sum of the core's chunks, each
    // gzipped as it is fetched.
    expect(report.gzippedBytes).toBeLessThanOrEqual(6_000);
    // Joined, the chunks share one gzip dictionary: smaller than the sum, never the budget's measure.
    expect(report.gzippedAsOneBytes).toBeLessThan(report.gzippedBytes);
    expect(report.gzippedAsOneBytes).toBeGreaterThan(report.gzippedBytes / 2);
    expect(report.inputs).not.toContain("src/routes/budget-ledger.ts");
    expect(report.inputs).toContain("src/client/call.ts");
    // The stream reader, failover, recording, settings and each provider's format load when a
    // call needs them; the breaker and createGatewayFetch are entries of their own.
    for (const lazy of [
      "src/client/stream-reader.ts",
      "src/client/failover.ts",
      "src/client/record.ts",
      "src/client/settings.ts",
      "src/client/unknown-route-error.ts",
      "src/client/answer-errors.ts",
      "src/client/breaker.ts",
      "src/client/fetch.ts",
      "src/providers/openai.ts",
      "node_modules/eventsource-parser/dist/index.js",
    ]) {
      expect(report.inputs).not.toContain(lazy);
    }
    expect(report.totalGzippedBytes).toBeGreaterThan(report.gzippedBytes);
  });

  it("would notice a package pulled into the bundle", async () => {
    const report = await measureClientBundle("test/__fixtures__/client/leaky-entry.ts");
    expect(leaks(report).some((input) => input.includes("node_modules/zod/"))).toBe(true);
  });

  it("refuses Node built-ins: the Node-only recorder cannot be bundled for a neutral platform", async () => {
    await expect(measureClientBundle("src/client/node/index.ts")).rejects.toThrow(/node:fs/);
  });
});
