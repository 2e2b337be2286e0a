import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { devCommand } from "../../src/cli/commands/dev.ts";
import { accountId } from "../emulator/helpers.ts";
import { startProcess } from "../helpers/processes.ts";

let directory: string;
let configFile: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-dev-"));
  configFile = path.join(directory, "gateways.json");
  await writeFile(
    configFile,
    JSON.stringify({
      accountId,
      gateways: [
        {
          id: "chat",
          authentication: true,
          // dynamic/default calls providers with keys stored in the gateway (BYOK).
          byok: { providers: ["anthropic", "openai"] },
          routes: {
            default: [
              { provider: "anthropic", model: "claude-sonnet-4-5" },
              { provider: "openai", model: "gpt-4o-mini" },
            ],
          },
        },
      ],
      keys: { providers: ["anthropic", "openai"] },
    }),
  );
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe("stepwise dev", () => {
  it("serves the stack with faults from flags, prints its URLs and stops cleanly on SIGTERM", async () => {
    const dev = startProcess(
      process.execPath,
      [
        "bin/stepwise.js",
        "dev",
        "--file",
        configFile,
        "--port",
        "0",
        "--json",
        "--fault-rule",
        "anthropic=unavailable",
      ],
      {
        cwd: path.resolve(import.meta.dirname, "../.."),
        env: { ...process.env, STEPWISE_GATEWAY_TOKEN: "cli-token" },
      },
    );
    onTestFinished(() => dev.stop().then(() => undefined));
    const [line] = await dev.waitFor(/^\{.*\}$/m);
    const urls = JSON.parse(line) as {
      rest: string;
      gateways: Record<string, { universal: string; compat: string }>;
      upstreams: Record<string, string>;
    };
    expect(urls.gateways.chat!.compat).toMatch(
      /\/v1\/[0-9a-f]{32}\/chat\/compat\/chat\/completions$/,
    );
    expect(Object.keys(urls.upstreams)).toContain("anthropic");
    const response = await fetch(urls.gateways.chat!.compat, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "cf-aig-authorization": "Bearer cli-token",
        authorization: "Bearer provider-key",
      },
      body: JSON.stringify({
        model: "dynamic/default",
        messages: [{ role: "user", content: "Hi" }],
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-provider")).toBe("openai");
    await response.text();
    dev.child.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
    await expect(fetch(urls.rest)).rejects.toThrow();
  });

  it("rejects bad flags with a message that says what to write", async () => {
    const run = (args: string[]) =>
      devCommand({ print: () => undefined, untilStopped: async () => "test", env: {} })
        .exitOverride()
        .parseAsync(["--file", configFile, ...args], { from: "user" });
    await expect(run(["--upstream", "openai"])).rejects.toThrow(/provider=url/);
    await expect(run(["--port", "http"])).rejects.toThrow(/--port/);
    await expect(run(["--fault-rule", "openai=meltdown"])).rejects.toThrow(/unknown fault kind/);
    await expect(run(["--upstream", "openai=ftp://x"])).rejects.toThrow(/http\(s\)/);
  });

  it("starts and stops in-process with upstream overrides", async () => {
    const printed: string[] = [];
    await devCommand({
      print: (text) => printed.push(text),
      untilStopped: async () => "SIGINT",
      env: {},
    })
      .exitOverride()
      .parseAsync(
        ["--file", configFile, "--port", "0", "--upstream", "openai=http://127.0.0.1:9"],
        {
          from: "user",
        },
      );
    const output = printed.join("\n");
    expect(output).toContain("/client/v4");
    expect(output).toMatch(/openai\s+http:\/\/127\.0\.0\.1:9\//);
    expect(output).toContain("gateway token stepwise-dev-token");
    expect(output).toContain("stopped");
  });
});
