/**
 * docs/credentials.md, as written: the example stack file validates with each step's credential
 * path listed (text and --json), and the same config runs in the emulator as the page says —
 * `byokOnly` is the gateway's `byok_only` (changelog 2026-09-14: "Requests without applicable
 * credentials then return an HTTP `400` response"), a gateway on Unified Billing is served with
 * Cloudflare's stand-in key and logged `wholesale`.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig, readConfigInput } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import {
  consoleBlock,
  documented,
  fencedBlock,
  linePattern,
  makeSandbox,
  runDocumented,
  type Sandbox,
} from "./documented.ts";

const page = "docs/credentials.md";
const stackFile = fencedBlock(page, "yaml", "stepwise:gateways");
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await makeSandbox([]);
  await writeFile(path.join(sandbox.directory, "Pulumi.credentials.yaml"), stackFile);
});

afterAll(async () => {
  await sandbox?.remove();
});

describe("docs/credentials.md: validate lists each step's credential path", () => {
  it("prints the console block, in order", async () => {
    const command = documented("npx stepwise validate --stack credentials");
    const run = await runDocumented(command, { sandbox });
    expect(run.code, run.output).toBe(0);
    const lines = run.stdout.split("\n");
    let from = 0;
    for (const line of consoleBlock(page, command)) {
      if (line.trim() === "") continue;
      const found = lines.findIndex(
        (candidate, index) => index >= from && linePattern(line).test(candidate),
      );
      expect(found, `not printed (in order): ${line}\n--- output:\n${run.stdout}`).not.toBe(-1);
      from = found + 1;
    }
  });

  it("gives the same paths as JSON, with the setting that decided each", async () => {
    const run = await runDocumented(
      documented("npx stepwise validate --stack credentials --json"),
      {
        sandbox,
      },
    );
    expect(run.code, run.output).toBe(0);
    const { credentials } = JSON.parse(run.stdout) as {
      credentials: { gateway: string; step: number; path: string; from: string }[];
    };
    expect(credentials.map(({ gateway, step, path, from }) => [gateway, step, path, from])).toEqual(
      [
        ["support", 0, "byok", "byok.providers"],
        ["support", 1, "request", "providerCredentials"],
        ["support", 2, "worker", "keys.providers"],
        ["research", 0, "unified-billing", "credentials"],
        ["research", 1, "unified-billing", "credentials"],
      ],
    );
  });
});

describe("docs/credentials.md: the example in the emulator (what `stepwise dev` runs)", () => {
  const token = "docs-gateway-token";
  let emulator: Emulator;
  const { input } = readConfigInput(stackFile, "Pulumi.credentials.yaml");
  const config = parseConfig(input);

  beforeAll(async () => {
    emulator = await startEmulator({
      config,
      gatewayToken: token,
      mockKeys: { openai: ["sk-app", "stepwise-unified-billing-openai"] },
      onError: (error) => {
        throw error;
      },
    });
  });

  afterAll(async () => {
    await emulator?.close();
  });

  const chat = (gateway: string, headers: Record<string, string> = {}) =>
    fetch(`${emulator.url}/client/v4/accounts/${config.accountId}/ai/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "cf-aig-gateway-id": gateway,
        ...headers,
      },
      body: JSON.stringify({
        model: "openai/gpt-4o-mini",
        messages: [{ role: "user", content: "What is Cloudflare?" }],
      }),
    });

  it("byokOnly: a call without openai's key is refused with a 400; with the app's key it is served", async () => {
    expect(emulator.state.gateways.get("support")?.settings.byok_only).toBe(true);
    const refused = await chat("support");
    expect(refused.status).toBe(400);
    const served = await chat("support", {
      "cf-aig-authorization": `Bearer ${token}`,
      authorization: "Bearer sk-app",
    });
    expect(served.status).toBe(200);
  });

  it("unified-billing: the same call without a key is served with Cloudflare's key", async () => {
    const response = await chat("research");
    expect(response.status).toBe(200);
    expect(emulator.logs("research").at(-1)?.wholesale).toBe(true);
  });
});
