/**
 * A campaign stopped halfway (the test's hook timed out, the user pressed Ctrl-C in a program
 * that embeds it) stops everything it started: no workerd, no server is left running.
 */
import { describe, expect, it } from "vitest";
import { runCampaign } from "../../src/chaos/index.ts";
import { loadConfig } from "../../src/config/index.ts";
import { projectRoot } from "../e2e/worker-harness.ts";
import { descendantsOf } from "../helpers/processes.ts";

describe("stopping a campaign", () => {
  it("stops sending, stops the Worker's workerd, and rejects with the reason", async () => {
    const { config } = await loadConfig({ stack: "dev", cwd: projectRoot });
    const stop = new AbortController();
    const lines: string[] = [];
    const campaign = runCampaign({
      config,
      quick: true,
      calls: 5_000,
      seed: 3,
      signal: stop.signal,
      log: (line) => {
        lines.push(line);
        // Stop once the calls are under way: the Worker runs in workerd by then.
        if (line.includes("fault rules on")) stop.abort(new Error("stopped by the test"));
      },
      progressStream: { write: () => true, isTTY: false } as unknown as NodeJS.WritableStream,
    });
    await expect(campaign).rejects.toThrow("stopped by the test");
    expect(lines.join("\n")).toContain("starting the Worker in workerd");
    const left = (await descendantsOf(process.pid)).filter((child) => child.command !== "esbuild");
    expect(left).toEqual([]);
  }, 300_000);
});
