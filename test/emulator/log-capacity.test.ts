/**
 * The logs' memory bound as a user sets it: `stepwise dev --log-capacity <n>` keeps the newest n
 * records of each gateway; a capacity that is not a whole number of at least 1 is refused with a
 * message naming the flag (or the option).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devCommand } from "../../src/cli/commands/dev.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { accountId, testConfig } from "./helpers.ts";

let directory: string;
let configFile: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-log-capacity-"));
  configFile = path.join(directory, "stack.json");
  await writeFile(
    configFile,
    JSON.stringify({
      accountId,
      gateways: [
        { id: "open", routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } },
      ],
      keys: { providers: ["openai"] },
    }),
  );
});
afterAll(() => rm(directory, { recursive: true, force: true }));

function chat(emulator: Emulator) {
  return fetch(`${emulator.url}/v1/${accountId}/open/openai/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer test-key" },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
  });
}

describe("stepwise dev --log-capacity", () => {
  it("keeps the newest records of each gateway, up to the capacity", async () => {
    const logIds: string[] = [];
    let emulator: Emulator | undefined;
    await devCommand({
      print: () => undefined,
      env: {},
      start: async (options) => {
        emulator = await startEmulator(options);
        return emulator;
      },
      untilStopped: async () => {
        for (let index = 0; index < 3; index++) {
          const response = await chat(emulator!);
          expect(response.status).toBe(200);
          logIds.push(response.headers.get("cf-aig-log-id")!);
        }
        return "SIGINT";
      },
    })
      .exitOverride()
      .parseAsync(["--file", configFile, "--port", "0", "--log-capacity", "2"], { from: "user" });
    expect(emulator!.logs("open").map((log) => log.id)).toEqual(logIds.slice(1));
  });

  it("refuses a capacity that is not a whole number of at least 1", async () => {
    const run = (value: string) =>
      devCommand({ print: () => undefined, untilStopped: async () => "test", env: {} })
        .exitOverride()
        .parseAsync(["--file", configFile, "--port", "0", "--log-capacity", value], {
          from: "user",
        });
    await expect(run("0")).rejects.toThrow(/--log-capacity must be a whole number/);
    await expect(run("1e6")).rejects.toThrow(/--log-capacity must be a whole number/);
    await expect(startEmulator({ config: testConfig(), logCapacity: 0.5 })).rejects.toThrow(
      /logCapacity must be a whole number/,
    );
  });
});
