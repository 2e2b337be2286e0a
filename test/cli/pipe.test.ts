import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateEvents, writeEventLines } from "../../tools/scripts/generate-events.ts";

const repoRoot = path.resolve(import.meta.dirname, "../..");
let directory: string;
let eventsFile: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-pipe-"));
  eventsFile = path.join(directory, "events.jsonl");
  const events = generateEvents({ count: 5_000, seed: 2 });
  await writeEventLines(
    eventsFile,
    (function* () {
      for (const event of events) yield JSON.stringify(event);
    })(),
  );
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("stepwise output into a pipe that closes early (… | head)", () => {
  it("exits 0 without an EPIPE crash", async () => {
    const child = spawn(
      "node",
      ["bin/stepwise.js", "report", eventsFile, "--json", "--bucket", "1m"],
      {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Read the first chunk, then close the pipe like `head -1` does.
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });
});
