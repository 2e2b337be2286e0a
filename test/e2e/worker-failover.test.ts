/**
 * The scenario operators care about, end to end over real HTTP on 127.0.0.1: the deployed
 * Worker bundle (in workerd, with local KV) in front of the emulated gateway and its mock
 * providers, which accept only the right keys. A wrong key written for the primary makes the
 * secondary serve (`cf-aig-step: 1`); rotating the right key back in makes the primary serve.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rotateCommand } from "../../src/cli/commands/rotate.ts";
import type { Emulator } from "../../src/emulator/index.ts";
import { compileUniversalRequest } from "../../src/routes/index.ts";
import { createAppToken, rotateKey } from "../../src/worker-admin/index.ts";
import {
  chatProdConfig,
  type RunningWorker,
  startWorkerOverEmulator,
  type WorkerOverEmulator,
} from "./worker-harness.ts";

const adminToken = "e2e-admin-token-0123456789";
const keys = {
  anthropicRight: "sk-ant-e2e-right-000001",
  anthropicWrong: "sk-ant-e2e-WRONG-000002",
  openaiRight: "sk-openai-e2e-right-0003",
};

const config = chatProdConfig(
  [
    { provider: "anthropic", model: "claude-sonnet-4-5" },
    { provider: "openai", model: "gpt-4o-mini" },
  ],
  { authentication: true },
);

let stack: WorkerOverEmulator;
let emulator: Emulator;
let worker: RunningWorker;
let appToken: string;

beforeAll(async () => {
  stack = await startWorkerOverEmulator({
    config,
    adminToken,
    gatewayToken: "e2e-gateway-token",
    // The emulator's default: a provider's 401 moves to the next step at once.
    mockKeys: { anthropic: [keys.anthropicRight], openai: [keys.openaiRight] },
  });
  ({ emulator, worker } = stack);
  appToken = (await createAppToken({ workerUrl: worker.url, token: adminToken, name: "e2e" }))
    .token;
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

async function chat(): Promise<{
  status: number;
  step: string | null;
  text: string;
  headers: Headers;
}> {
  const route = config.gateways[0]!.routes.default!;
  const body = compileUniversalRequest(route, {
    messages: [{ role: "user", content: "Say hi" }],
    maxTokens: 16,
  });
  const response = await fetch(`${worker.url}/v1/${config.accountId}/chat-prod`, {
    method: "POST",
    // Apps send their Stepwise app token where gateway clients send the gateway token.
    headers: { "content-type": "application/json", "cf-aig-authorization": `Bearer ${appToken}` },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    step: response.headers.get("cf-aig-step"),
    text: await response.text(),
    headers: response.headers,
  };
}

describe("companion Worker in front of the emulated gateway", () => {
  it("a wrong primary key makes the secondary serve; rotating the right key back restores the primary", async () => {
    const rotate = (provider: string, key: string, label: string) =>
      rotateKey({
        workerUrl: worker.url,
        provider,
        key,
        token: adminToken,
        label,
        fetch: globalThis.fetch,
      });
    await rotate("openai", keys.openaiRight, "e2e:setup");
    const wrong = await rotate("anthropic", keys.anthropicWrong, "e2e:bad-deploy");
    expect(wrong).toMatchObject({
      provider: "anthropic",
      state: "current",
      label: "e2e:bad-deploy",
    });

    emulator.mocks!.clearAttempts();
    const fallback = await chat();
    expect(fallback.status).toBe(200);
    expect(fallback.step).toBe("1");
    expect(fallback.headers.get("cf-aig-provider")).toBe("openai");
    expect(JSON.parse(fallback.text)).toMatchObject({ object: "chat.completion" });
    expect(emulator.mocks!.attempts.map(({ provider, auth }) => ({ provider, auth }))).toEqual([
      { provider: "anthropic", auth: "wrong" },
      { provider: "openai", auth: "valid" },
    ]);

    // The operator rotates the right key back in with the CLI, reading it from stdin.
    const printed: string[] = [];
    await rotateCommand({
      env: { STEPWISE_ROTATE_TOKEN: adminToken, STEPWISE_WORKER_URL: worker.url },
      readStdin: async () => `${keys.anthropicRight}\n`,
      print: (line) => printed.push(line),
    }).parseAsync(["anthropic", "--key-file", "-", "--label", "e2e:fix", "--json"], {
      from: "user",
    });
    const fixed = JSON.parse(printed.join("\n"));
    expect(fixed).toMatchObject({ provider: "anthropic", state: "current", label: "e2e:fix" });
    expect(fixed.version > wrong.version).toBe(true);
    expect(printed.join("\n")).not.toContain(keys.anthropicRight);

    emulator.mocks!.clearAttempts();
    const primary = await chat();
    expect(primary.status).toBe(200);
    expect(primary.step).toBe("0");
    expect(primary.headers.get("cf-aig-provider")).toBe("anthropic");
    expect(JSON.parse(primary.text)).toMatchObject({ type: "message" });
    expect(emulator.mocks!.attempts.map(({ provider, auth }) => ({ provider, auth }))).toEqual([
      { provider: "anthropic", auth: "valid" },
    ]);

    // History shows the versions; no response and no Worker log line carried a key.
    const history = await fetch(`${worker.url}/keys/anthropic`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    const view = (await history.json()) as { versions: { label: string; state: string }[] };
    expect(view.versions.map(({ label, state }) => ({ label, state }))).toEqual([
      { label: "e2e:fix", state: "current" },
      { label: "e2e:bad-deploy", state: "previous" },
    ]);
    const logs = worker.logs.join("");
    expect(logs).toContain("rotated anthropic");
    for (const text of [fallback.text, primary.text, JSON.stringify(view), logs]) {
      for (const key of Object.values(keys)) expect(text).not.toContain(key);
    }
  });

  it("refuses a call without a valid app token before it reaches the gateway", async () => {
    emulator.mocks!.clearAttempts();
    const response = await fetch(`${worker.url}/v1/${config.accountId}/chat-prod`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "cf-aig-authorization": `Bearer ${emulator.gatewayToken}`,
      },
      body: "[]",
    });
    expect(response.status).toBe(401);
    expect(emulator.mocks!.attempts).toEqual([]);
  });
});
