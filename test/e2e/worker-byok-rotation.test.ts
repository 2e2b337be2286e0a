/**
 * Issue #12's last "Done when", in the local system (emulator with key-checking mock providers,
 * the Worker bundle in workerd with the emulator's REST URL as its Cloudflare API): one rotation
 * through the Worker changes the key of a proxied universal call and of a `dynamic/<route>` call,
 * and `stepwise rotate` reports both places. The provider revokes the old key right after the
 * rotation, so only a call carrying the new key can be served by it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RotateDependencies, rotateCommand } from "../../src/cli/commands/rotate.ts";
import { loadConfig } from "../../src/config/index.ts";
import { type LocalSystem, startLocalSystem } from "../../src/demo/index.ts";
import { projectRoot } from "./worker-harness.ts";

let system: LocalSystem;

beforeAll(async () => {
  const { config } = await loadConfig({ stack: "dev", cwd: projectRoot });
  system = await startLocalSystem({ config });
}, 180_000);

afterAll(async () => {
  await system?.close();
});

const question = { messages: [{ role: "user", content: "hello" }], max_tokens: 16 };

/** A proxied universal call with one anthropic step on chat-prod. */
async function proxiedAnthropic(): Promise<Response> {
  return fetch(`${system.worker.url}/v1/${system.emulator.accountId}/chat-prod`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "cf-aig-authorization": `Bearer ${system.appToken}`,
    },
    body: JSON.stringify([
      {
        provider: "anthropic",
        endpoint: "v1/messages",
        headers: { "anthropic-version": "2023-06-01" },
        query: { model: "claude-sonnet-4-5", ...question },
      },
    ]),
  });
}

/** `dynamic/default` on chat-dynamic (anthropic first), through the Worker's compat endpoint. */
async function dynamicDefault(): Promise<Response> {
  return fetch(
    `${system.worker.url}/v1/${system.emulator.accountId}/chat-dynamic/compat/chat/completions`,
    {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${system.appToken}` },
      body: JSON.stringify({ model: "dynamic/default", ...question }),
    },
  );
}

describe("one rotation through the Worker, both places", () => {
  it("a proxied universal call and a dynamic/<route> call both use the rotated key", async () => {
    expect((await proxiedAnthropic()).status).toBe(200);
    expect((await dynamicDefault()).headers.get("cf-aig-provider")).toBe("anthropic");

    const rotated = await system.rotate("anthropic", "e2e rotation");
    expect(rotated.propagation.byok).toEqual([
      {
        gateway: "chat-dynamic",
        secret: "chat-dynamic_anthropic_default",
        alias: "default",
        state: "written",
      },
    ]);
    expect(system.storedKeyFingerprints("anthropic")).toEqual([
      { secret: "chat-dynamic_anthropic_default", fingerprint: rotated.fingerprint },
    ]);
    // The provider now accepts the new key only.
    system.emulator.mocks?.setKeys("anthropic", [system.currentKey("anthropic")]);

    const proxied = await proxiedAnthropic();
    expect(proxied.status).toBe(200);
    const dynamic = await dynamicDefault();
    expect(dynamic.status).toBe(200);
    // Served by anthropic itself, not by the route's fallback: the gateway's stored key changed.
    expect(dynamic.headers.get("cf-aig-provider")).toBe("anthropic");
  });

  it("stepwise rotate reports KV and every BYOK secret it overwrote", async () => {
    const printed: string[] = [];
    const dependencies: RotateDependencies = {
      env: { STEPWISE_ROTATE_TOKEN: system.adminToken, STEPWISE_WORKER_URL: system.worker.url },
      readStdin: async () => "sk-openai-e2e-rotated-0001\n",
      print: (line) => printed.push(line),
    };
    await rotateCommand(dependencies)
      .exitOverride()
      .configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
      .parseAsync(["openai", "--key-file", "-"], { from: "user" });
    const text = printed.join("\n");
    expect(text).toContain("proxied calls (Workers KV): written");
    expect(text).toContain(
      "dynamic routes of chat-dynamic (BYOK secret chat-dynamic_openai_default): written",
    );
    expect(text).not.toContain("sk-openai-e2e-rotated");
  });
});
