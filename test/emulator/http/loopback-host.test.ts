/**
 * The emulator answers only requests whose `Host` is a loopback name, as a local server should
 * against DNS rebinding: a page whose own name comes to resolve to 127.0.0.1 sends that name as
 * `Host`. Every path is refused alike: the REST API (model calls and the settings it changes) and
 * the legacy gateway endpoints (which spend stored keys and create `default`).
 */
import { request as httpRequest } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isLoopbackHost } from "../../../src/emulator/http/loopback-host.ts";
import type { Emulator } from "../../../src/emulator/index.ts";
import { emulatorWith, testConfig, token, universalBody } from "../helpers.ts";

describe("isLoopbackHost", () => {
  it.each([
    ["127.0.0.1:8787", true],
    ["127.0.0.1", true],
    ["localhost:8787", true],
    ["LocalHost:1", true],
    ["[::1]:8787", true],
    ["rebind.attacker.example:8787", false],
    ["127.0.0.1.attacker.example", false],
    ["localhost.attacker.example:8787", false],
    ["127.0.0.2:8787", false],
    ["[::1]:8787@attacker.example", false],
    ["localhost:", false],
    ["", false],
    [undefined, false],
  ] as const)("%s → %s", (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

let emulator: Emulator;
const config = testConfig();
beforeEach(async () => {
  ({ emulator } = await emulatorWith({ config }));
});
afterEach(() => emulator.close());

/** Sends `body` to the emulator with the `Host` header given (fetch would not let us). */
function send(path: string, host: string, method: string, body?: unknown) {
  const url = new URL(path, emulator.url);
  return new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method,
        headers: {
          host,
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
        },
      },
      (incoming) => {
        let text = "";
        incoming.setEncoding("utf8");
        incoming.on("data", (chunk: string) => (text += chunk));
        incoming.on("end", () =>
          resolve({ status: incoming.statusCode ?? 0, json: JSON.parse(text) }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const rebound = () => `rebind.attacker.example:${new URL(emulator.url).port}`;
const chat = { model: "openai/gpt-4.1", messages: [{ role: "user", content: "Hi" }] };

describe("the emulator behind a DNS-rebound name", () => {
  it("refuses the REST API's model calls: 403 JSON, nothing called, no default gateway", async () => {
    const path = `/client/v4/accounts/${emulator.accountId}/ai/v1/chat/completions`;
    const refused = await send(path, rebound(), "POST", chat);
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ success: false, errors: [{ code: 2042 }] });
    expect(JSON.stringify(refused.json)).toContain("rebind.attacker.example");
    expect(emulator.mocks!.attempts).toEqual([]);
    expect(emulator.state.gateways.get("default")).toBeUndefined();
    const served = await send(path, `localhost:${new URL(emulator.url).port}`, "POST", chat);
    expect(served.status).toBe(200);
  });

  it("refuses the settings API, so a rebound page cannot change a gateway", async () => {
    const path = `/client/v4/accounts/${emulator.accountId}/ai-gateway/gateways/open`;
    const before = emulator.state.gateways.get("open")!.settings;
    const update = { ...before, collect_logs: false, cache_ttl: 600 };
    const refused = await send(path, rebound(), "PUT", update);
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ success: false, errors: [{ code: 2042 }] });
    expect(emulator.state.gateways.get("open")!.settings).toEqual(before);
    const read = await send(path, `127.0.0.1:${new URL(emulator.url).port}`, "GET");
    expect(read.status).toBe(200);
  });

  it("refuses the legacy gateway endpoints in the gateway's error shape", async () => {
    const path = `/v1/${emulator.accountId}/open`;
    const refused = await send(path, rebound(), "POST", universalBody(config, "open"));
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ success: false, error: [{ code: 2042 }] });
    expect(emulator.mocks!.attempts).toEqual([]);
    expect(emulator.logs("open")).toEqual([]);
    const served = await send(
      path,
      `[::1]:${new URL(emulator.url).port}`,
      "POST",
      universalBody(config, "open"),
    );
    expect(served.status).toBe(200);
  });
});
