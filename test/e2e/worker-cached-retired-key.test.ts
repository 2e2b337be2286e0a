/**
 * Issue #23's "a rotated and revoked key never reaches an app through a cached answer", in
 * workerd in front of the emulator: the Worker bundle as deployed, the emulated gateway caching
 * answers (`cache.ttl`), and an upstream that repeats the key it was sent. The answer is cached
 * with the first key in it; the key is rotated and revoked through the Worker's admin API; the
 * same call again is served from the gateway's cache (`HIT`) and the old key is scrubbed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig, workerViewText } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { createAppToken, rotateKey } from "../../src/worker-admin/index.ts";
import {
  buildWorkerBundle,
  type RunningWorker,
  startWorker,
  type WorkerBundle,
} from "./worker-harness.ts";

const adminToken = "retired-key-admin-token-0123456789";
const firstKey = "sk-e2e-RETIRED-first-4b8c01d9";
const secondKey = "sk-e2e-RETIRED-second-77ae3f20";
const config = parseConfig({
  accountId: "0123456789abcdef0123456789abcdef",
  gateways: [
    {
      id: "chat-prod",
      cache: { ttl: 3600 },
      routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
    },
  ],
  keys: { providers: ["openai"] },
  worker: { healthProbe: { enabled: false } },
});

let emulator: Emulator;
let bundle: WorkerBundle;
let worker: RunningWorker;
let appToken: string;
const upstreamCalls: string[] = [];

/** An OpenAI stand-in that repeats the key it was sent (as a debugging upstream might). */
const echoingUpstream: typeof fetch = async (_input, init) => {
  const key = new Headers(init?.headers).get("authorization")?.replace(/^Bearer /, "") ?? "";
  upstreamCalls.push(key);
  return Response.json({
    id: "chatcmpl-echo",
    object: "chat.completion",
    model: "gpt-4o-mini",
    choices: [
      {
        index: 0,
        finish_reason: "stop",
        message: { role: "assistant", content: `you sent ${key}` },
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 },
  });
};

beforeAll(async () => {
  emulator = await startEmulator({ config, fetch: echoingUpstream, onError: () => undefined });
  bundle = await buildWorkerBundle();
  worker = await startWorker(bundle.scriptPath, {
    ROTATE_TOKEN: adminToken,
    GATEWAY_URL: emulator.url,
    GATEWAY_TOKEN: emulator.gatewayToken,
    STEPWISE_CONFIG: workerViewText(config),
  });
  appToken = (await createAppToken({ workerUrl: worker.url, token: adminToken, name: "replay" }))
    .token;
}, 180_000);

afterAll(async () => {
  await worker?.close();
  await bundle?.remove();
  await emulator?.close();
});

const rotate = (key: string) =>
  rotateKey({
    workerUrl: worker.url,
    provider: "openai",
    key,
    token: adminToken,
    label: "e2e",
    fetch: globalThis.fetch,
  });

function chat(): Promise<Response> {
  return fetch(`${worker.url}/v1/${config.accountId}/chat-prod/compat/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-aig-authorization": `Bearer ${appToken}` },
    body: JSON.stringify({
      model: "openai/gpt-4o-mini",
      messages: [{ role: "user", content: "what key did you get?" }],
    }),
  });
}

describe("the Worker in workerd in front of the emulator's cache", () => {
  it("a cached answer replayed after the key was rotated and revoked carries no key", async () => {
    const first = await rotate(firstKey);
    const miss = await chat();
    expect(miss.status).toBe(200);
    expect(miss.headers.get("cf-aig-cache-status")).toBe("MISS");
    const missText = await miss.text();
    expect(upstreamCalls).toEqual([firstKey]);
    expect(missText).not.toContain(firstKey);
    expect(missText).toContain("[redacted]");

    await rotate(secondKey);
    const revoked = await fetch(`${worker.url}/keys/openai/${first.version}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(revoked.status).toBe(200);

    const hit = await chat();
    expect(hit.status).toBe(200);
    expect(hit.headers.get("cf-aig-cache-status")).toBe("HIT");
    const hitText = await hit.text();
    // Served from the cache: the upstream was not asked again, and the old key is gone.
    expect(upstreamCalls).toEqual([firstKey]);
    expect(hitText).not.toContain(firstKey);
    expect(hitText).toContain("[redacted]");
  }, 60_000);
});
