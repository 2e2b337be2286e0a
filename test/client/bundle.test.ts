import { describe, expect, it } from "vitest";
import { measureClientBundle } from "../../tools/scripts/client-size.ts";

/**
 * Modules the client may contain: its own (not the Node-only entry), the dependency-free folders,
 * and the SSE parser the build inlines.
 */
const allowed =
  /^(src\/(client\/(?!node\/)|providers\/|routes\/|errors\/)|node_modules\/eventsource-parser\/)/;

function leaks(inputs: readonly string[]): string[] {
  return inputs.filter((input) => !allowed.test(input));
}

describe("the client bundle", () => {
  it("has no run-time dependencies: only src modules, nothing external", async () => {
    const report = await measureClientBundle();
    expect(report.externalImports).toStrictEqual([]);
    expect(leaks(report.inputs)).toStrictEqual([]);
    expect(report.inputs).toContain("src/client/index.ts");
    expect(report.inputs.some((input) => input.startsWith("src/config/"))).toBe(false);
    expect(report.gzippedBytes).toBeGreaterThan(0);
    expect(report.gzippedBytes).toBeLessThan(report.minifiedBytes);
  });

  it("would notice a package pulled into the bundle", async () => {
    const report = await measureClientBundle("test/__fixtures__/client/leaky-entry.ts");
    expect(leaks(report.inputs).some((input) => input.includes("node_modules/zod/"))).toBe(true);
  });

  it("refuses Node built-ins: the Node-only recorder cannot be bundled for a neutral platform", async () => {
    await expect(measureClientBundle("src/client/node/index.ts")).rejects.toThrow(/node:fs/);
  });
});
