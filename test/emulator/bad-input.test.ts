import { connect } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { accountId, emulatorWith, postJson, testConfig, token, universalBody } from "./helpers.ts";

let emulator: Emulator;
const config = testConfig([
  {
    id: "locked",
    authentication: true,
    routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
  },
]);
beforeEach(async () => {
  emulator = (await emulatorWith({ config })).emulator;
});
afterEach(() => emulator.close());

async function errorOf(response: Response) {
  const body = (await response.json()) as { error: { code: number; message: string }[] };
  return { status: response.status, code: body.error[0]!.code, message: body.error[0]!.message };
}

describe("bad input gets Cloudflare-shaped errors", () => {
  it("answers 400 with code 2001 for an unknown gateway or account", async () => {
    const body = universalBody(config, "open");
    const unknown = await errorOf(await postJson(`${emulator.url}/v1/${accountId}/missing`, body));
    expect(unknown).toMatchObject({ status: 400, code: 2001 });
    expect(unknown.message).toContain('"missing"');
    const otherAccount = await postJson(
      `${emulator.url}/v1/ffffffffffffffffffffffffffffffff/open`,
      body,
    );
    expect(await errorOf(otherAccount)).toMatchObject({ status: 400, code: 2001 });
  });

  it("answers 401 with code 2009 on an authenticated gateway without the right token", async () => {
    const body = JSON.stringify(universalBody(config, "locked"));
    const missing = await fetch(emulator.gatewayUrl("locked"), { method: "POST", body });
    expect(await errorOf(missing)).toEqual({ status: 401, code: 2009, message: "Unauthorized" });
    const wrong = await postJson(emulator.gatewayUrl("locked"), body, {
      "cf-aig-authorization": "Bearer not-the-token",
    });
    expect(await errorOf(wrong)).toMatchObject({ status: 401, code: 2009 });
    const right = await postJson(emulator.gatewayUrl("locked"), body);
    expect(right.status).toBe(200);
    await right.text();
    expect(emulator.mocks!.attempts).toHaveLength(1);
  });

  it.each([
    ["not JSON", "{nope"],
    ["an empty array", "[]"],
    [
      "a step without provider",
      JSON.stringify([{ endpoint: "chat/completions", headers: {}, query: {} }]),
    ],
    [
      "a step without query",
      JSON.stringify([{ provider: "openai", endpoint: "chat/completions", headers: {} }]),
    ],
    [
      "an unknown provider",
      JSON.stringify([{ provider: "nope", endpoint: "x", headers: {}, query: {} }]),
    ],
    [
      "a bad step config",
      JSON.stringify([
        {
          provider: "openai",
          endpoint: "chat/completions",
          headers: {},
          query: {},
          config: { maxAttempts: 9 },
        },
      ]),
    ],
    [
      "a path escape",
      JSON.stringify([{ provider: "openai", endpoint: "../admin", headers: {}, query: {} }]),
    ],
    [
      "a header with a line break",
      JSON.stringify([
        {
          provider: "openai",
          endpoint: "chat/completions",
          headers: { "x-a": "b\r\nc" },
          query: {},
        },
      ]),
    ],
    [
      "a bad step header value",
      JSON.stringify([
        {
          provider: "openai",
          endpoint: "chat/completions",
          headers: { "cf-aig-cache-ttl": "soon" },
          query: {},
        },
      ]),
    ],
  ])("answers 400 for a universal body with %s", async (_name, body) => {
    const response = await postJson(emulator.gatewayUrl("open"), body);
    expect(await errorOf(response)).toMatchObject({ status: 400, code: 2008 });
    expect(emulator.mocks!.attempts).toHaveLength(0);
  });

  it.each([
    ["cf-aig-cache-ttl", "ten"],
    ["cf-aig-cache-ttl", "30"],
    ["cf-aig-skip-cache", "maybe"],
    ["cf-aig-max-attempts", "9"],
    ["cf-aig-retry-delay", "-5"],
    ["cf-aig-backoff", "quadratic"],
    ["cf-aig-request-timeout", "0"],
    ["cf-aig-metadata", "{not json"],
    ["cf-aig-metadata", '{"nested":{"a":1}}'],
    ["cf-aig-custom-cost", '{"per_token_in":"free"}'],
    ["cf-aig-collect-log", "yes"],
  ])("answers 400 for %s: %s", async (header, value) => {
    const response = await postJson(emulator.gatewayUrl("open"), universalBody(config, "open"), {
      [header]: value,
    });
    const error = await errorOf(response);
    expect(error).toMatchObject({ status: 400, code: 2008 });
    expect(error.message).toContain(header);
  });

  it("answers 404/405 for unknown endpoints and methods, never 500", async () => {
    expect((await fetch(`${emulator.url}/v1/${accountId}`)).status).toBe(404);
    expect((await fetch(emulator.gatewayUrl("open"))).status).toBe(405);
    expect((await fetch(`${emulator.url}/nothing-here`)).status).toBe(404);
    const rest = await fetch(`${emulator.restUrl}/accounts/${accountId}/ai-gateway/nothing`, {
      headers: { authorization: "Bearer x" },
    });
    expect(rest.status).toBe(404);
    expect(await rest.json()).toMatchObject({ success: false, errors: [{ code: 7000 }] });
    const noAuth = await fetch(`${emulator.restUrl}/accounts/${accountId}/ai-gateway/gateways`);
    expect(noAuth.status).toBe(400);
    expect(await noAuth.json()).toMatchObject({ errors: [{ code: 9106 }] });
  });

  it("stays up under a burst of garbage requests", async () => {
    const garbage: Promise<number>[] = [];
    const url = emulator.gatewayUrl("open");
    for (let index = 0; index < 40; index++) {
      const bodies = [
        "\u0000\u0001\u0002",
        "x".repeat(index * 97),
        JSON.stringify({ provider: index }),
        JSON.stringify([{ provider: "openai", endpoint: "%%%", headers: [], query: null }]),
        `[${"[".repeat(500)}`,
      ];
      garbage.push(
        postJson(url, bodies[index % bodies.length]!, { "cf-aig-metadata": "[]" }).then(
          async (response) => {
            await response.arrayBuffer();
            return response.status;
          },
        ),
      );
      garbage.push(
        fetch(`${emulator.url}/v1/%E0%A4%A/${"%".repeat(index)}`).then(
          (response) => response.status,
        ),
      );
      garbage.push(
        fetch(
          `${emulator.restUrl}/accounts/${accountId}/ai-gateway/gateways/open/logs?page=abc&filters=%7B`,
          {
            headers: { authorization: "Bearer x" },
          },
        ).then((response) => response.status),
      );
    }
    const rawSockets = Array.from(
      { length: 10 },
      (_, index) =>
        new Promise<void>((resolve) => {
          const socket = connect(emulator.port, "127.0.0.1", () => {
            socket.end(
              index % 2 === 0
                ? "GARBAGE\r\n\r\n"
                : "POST /v1/x HTTP/1.1\r\nContent-Length: 99\r\n\r\nshort",
            );
          });
          socket.on("error", () => resolve());
          socket.on("close", () => resolve());
          socket.resume();
        }),
    );
    const statuses = await Promise.all(garbage);
    await Promise.all(rawSockets);
    expect(statuses.every((status) => status >= 400 && status < 500)).toBe(true);
    const healthy = await postJson(emulator.gatewayUrl("open"), universalBody(config, "open"), {
      "cf-aig-authorization": `Bearer ${token}`,
    });
    expect(healthy.status).toBe(200);
    await healthy.text();
  });
});
