/**
 * Issue #23: one request hung a provider for every app. The deployed bundle in workerd, in front
 * of a bare Node server standing for the gateway (it answers every call at once). An app with a
 * limit of 1 spends it, goes over (429) and sends provider-native calls for providers nobody has
 * called yet (429 again). Before the fix those calls started the isolate's shared KV read of
 * `current:{provider}` before the limiter answered; the 429 ended the request, the read it
 * started never settled, and every later call for that provider (every app's) and the cron's
 * health probes waited on it for ever. Now another app is served and the cron probes.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig, workerViewText } from "../../src/config/index.ts";
import { createAppToken, rotateKey } from "../../src/worker-admin/index.ts";
import {
  buildWorkerBundle,
  type RunningWorker,
  startWorker,
  type WorkerBundle,
} from "./worker-harness.ts";

const adminToken = "stranded-admin-token-0123456789";
const providers = ["anthropic", "groq", "mistral", "deepseek"] as const;
const config = parseConfig({
  accountId: "0123456789abcdef0123456789abcdef",
  gateways: [
    {
      id: "chat-prod",
      routes: {
        default: [
          { provider: "openai", model: "gpt-4o-mini" },
          { provider: "anthropic", model: "claude-sonnet-4-5" },
          { provider: "groq", model: "llama-3.1-8b-instant" },
          { provider: "mistral", model: "mistral-small-latest" },
          { provider: "deepseek", model: "deepseek-chat" },
        ],
      },
    },
  ],
  keys: { providers: ["openai", ...providers] },
  worker: { healthProbe: { enabled: true } },
});

let bundle: WorkerBundle;
let worker: RunningWorker;
let gateway: http.Server;
/** Each request the gateway received: method and path, and whether it was a health probe. */
const received: { path: string; probe: boolean }[] = [];
let greedy: string;
let other: string;

beforeAll(async () => {
  gateway = http.createServer((request, response) => {
    const probe = (request.headers["cf-aig-metadata"] ?? "").includes("health-probe");
    request.resume();
    request.on("end", () => {
      received.push({ path: request.url ?? "", probe });
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ id: "x", object: "chat.completion", choices: [] }));
    });
  });
  await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
  const { port } = gateway.address() as AddressInfo;
  bundle = await buildWorkerBundle();
  worker = await startWorker(bundle.scriptPath, {
    ROTATE_TOKEN: adminToken,
    GATEWAY_URL: `http://127.0.0.1:${port}`,
    STEPWISE_CONFIG: workerViewText(config),
  });
  for (const provider of ["openai", ...providers]) {
    await rotateKey({
      workerUrl: worker.url,
      provider,
      key: `sk-${provider}-stranded-000001`,
      token: adminToken,
      label: "stranded",
      fetch: globalThis.fetch,
    });
  }
  const admin = { workerUrl: worker.url, token: adminToken };
  greedy = (
    await createAppToken({ ...admin, name: "greedy", rateLimit: { limit: 1, windowSeconds: 600 } })
  ).token;
  other = (await createAppToken({ ...admin, name: "other" })).token;
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await bundle?.remove();
  await new Promise((resolve) => gateway?.close(resolve));
});

function native(token: string, provider: string): Promise<Response> {
  return fetch(`${worker.url}/v1/${config.accountId}/chat-prod/${provider}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-aig-authorization": `Bearer ${token}` },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    // Bounds a hang (the bug), not the Worker's speed.
    signal: AbortSignal.timeout(20_000),
  });
}

function compat(token: string): Promise<Response> {
  return fetch(`${worker.url}/v1/${config.accountId}/chat-prod/compat/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-aig-authorization": `Bearer ${token}` },
    body: JSON.stringify({
      model: "openai/gpt-4o-mini",
      messages: [{ role: "user", content: "hi" }],
    }),
    signal: AbortSignal.timeout(20_000),
  });
}

describe("an app over its limit cannot strand a read other apps wait on", () => {
  it("after the over-limit sequence another app is served for every provider and the cron probes", async () => {
    expect((await compat(greedy)).status).toBe(200);
    const over = await compat(greedy);
    expect(over.status).toBe(429);
    await over.body?.cancel();
    // Provider-native calls over the limit, for providers whose pool no call has read yet.
    for (const provider of providers) {
      const refused = await native(greedy, provider);
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ error: { code: "rate_limited" } });
    }

    for (const provider of providers) {
      const served = await native(other, provider);
      expect(served.status).toBe(200);
      await served.body?.cancel();
    }
    expect(received.filter((call) => !call.probe)).toHaveLength(1 + providers.length);

    // Miniflare's Fetcher runs the Worker's `scheduled` handler (its types leave it out here).
    const cron = (await worker.miniflare.getWorker()) as unknown as {
      scheduled(options: { cron: string }): Promise<unknown>;
    };
    await cron.scheduled({ cron: "*/5 * * * *" });
    // One probe per provider/model of the routes.
    expect(received.filter((call) => call.probe)).toHaveLength(1 + providers.length);
  }, 120_000);
});
