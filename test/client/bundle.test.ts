import { describe, expect, it } from "vitest";
import {
  measureClientBundle,
  measureOneFile,
  oneFileBudgetBytes,
} from "../../tools/scripts/client-size.ts";

/**
 * Modules the client may contain: its own (not the Node-only entry), the dependency-free folders,
 * and the SSE parser the build inlines.
 */
const allowed =
  /^(consumer|src\/(client\/(?!node\/)|providers\/|routes\/|errors\/|wire\/)|node_modules\/eventsource-parser\/)/;

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

  it("bundles a chat-and-stream app into one file of at most 20 kB min+gz, as wrangler does", async () => {
    // Issue 28's budget (1 kB = 1,000 bytes): the package as installed, and an app that chats and
    // streams, bundled into one file (`esbuild --bundle --minify`): what a Worker uploads.
    const [report] = await measureOneFile(["chat-and-stream"]);
    expect(report!.gzippedBytes).toBeLessThanOrEqual(oneFileBudgetBytes);
    expect(report!.minifiedBytes).toBeGreaterThan(report!.gzippedBytes);
    // wrangler keeps names by default: its bundle is larger, never smaller.
    expect(report!.keepNamesGzippedBytes).toBeGreaterThanOrEqual(report!.gzippedBytes);
  });

  it("bundles every client consumer into one file with nothing Node-only, as a Worker needs", async () => {
    // A shared chunk that reached for node:fs once made `createGatewayFetch` unbundleable for a
    // Worker (its served-step lookup imported the routes barrel): each consumer must build.
    const reports = await measureOneFile(["chat", "stream", "breaker", "fetch"]);
    expect(reports.map((report) => report.consumer)).toEqual([
      "chat",
      "stream",
      "breaker",
      "fetch",
    ]);
    for (const report of reports) expect(report.gzippedBytes).toBeGreaterThan(0);
  });

  it("loads what an app that only chats never runs on demand: the stream reader and other formats", async () => {
    const report = await measureClientBundle("chat");
    expect(report.inputs).toContain("src/client/call.ts");
    expect(report.inputs).toContain("src/client/failover.ts");
    // Behind `on-demand/`: the stream reader and each provider's format; the breaker and
    // createGatewayFetch are entries of their own.
    for (const onDemand of [
      "src/client/on-demand/stream-reader.ts",
      "src/providers/streams.ts",
      "src/providers/openai.ts",
      "src/providers/anthropic.ts",
      "src/client/breaker.ts",
      "src/client/fetch.ts",
      "node_modules/eventsource-parser/dist/index.js",
    ]) {
      expect(report.inputs).not.toContain(onDemand);
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
