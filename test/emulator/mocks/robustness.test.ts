import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  canonicalAnswer,
  type MockProviders,
  startMockProviders,
} from "../../../src/emulator/mocks/index.ts";
import { getProvider, UnknownProviderError } from "../../../src/providers/index.ts";
import { chat, formatCases, readError } from "./helpers.ts";

let mocks: MockProviders;

beforeAll(async () => {
  mocks = await startMockProviders({ providers: formatCases.map((c) => c.provider) });
});
afterAll(() => mocks.close());

/** Sends raw bytes on a new connection and resolves with whatever comes back before it closes. */
function sendRaw(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.end(bytes));
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString();
    });
    socket.on("close", () => resolve(received));
    socket.on("error", () => resolve(received));
  });
}

describe("robustness", () => {
  it("answers any body on a chat path with a status, never a crash or a 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...formatCases),
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.uint8Array().map((bytes) => Buffer.from(bytes).toString("latin1")),
        ),
        async ({ provider, model }, body) => {
          const adapter = getProvider(provider);
          const request = { messages: [{ role: "user" as const, content: "hi" }] };
          const response = await fetch(
            `${mocks.urls[provider]}${adapter.endpoint(model, request)}`,
            {
              method: "POST",
              headers: { "content-type": "application/json", ...adapter.authHeaders("k") },
              body,
            },
          );
          const text = await response.text();
          expect([200, 400]).toContain(response.status);
          if (response.status === 400) {
            expect(adapter.parseError(400, text).type).not.toBe("unknown");
          }
        },
      ),
      { numRuns: 60, seed: 20_260_501 },
    );
  });

  it("survives a burst of garbage that is not HTTP, then still answers", async () => {
    const garbage = [
      "\u0000\u0001\u0002",
      "GET\r\n\r\n",
      "POST / HTTP/9.9\r\nx\r\n\r\n",
      "🔥".repeat(500),
      "\r\n\r\n",
    ];
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        sendRaw(mocks.urls.openai!, garbage[index % garbage.length]!),
      ),
    );
    for (const reply of replies)
      expect(reply === "" || reply.startsWith("HTTP/1.1 400")).toBe(true);
    const response = await chat(mocks, "openai", { model: "gpt-4o" });
    const result = getProvider("openai").parseResponse(await response.text());
    expect(result.text).toBe(canonicalAnswer("openai", "gpt-4o"));
  });

  it("rejects a GET on a chat path with 405 in the provider's format", async () => {
    const response = await fetch(`${mocks.urls.anthropic}v1/messages`, {
      headers: { "x-api-key": "k", "anthropic-version": "2023-06-01" },
    });
    expect(response.status).toBe(405);
    expect((await readError("anthropic", response)).type).toBe("invalid_request_error");
  });

  it("a non-positive max tokens is a 400 naming the field", async () => {
    const response = await fetch(`${mocks.urls.openai}chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer k" },
      body: JSON.stringify({
        model: "gpt-4o",
        messages: [{ role: "user", content: "x" }],
        max_tokens: 0,
      }),
    });
    expect(response.status).toBe(400);
    expect((await readError("openai", response)).message).toContain("max_tokens");
  });

  it("refuses an unknown provider slug, starting nothing", async () => {
    await expect(startMockProviders({ providers: ["openai", "opneai"] })).rejects.toBeInstanceOf(
      UnknownProviderError,
    );
  });

  it("refuses an invalid fault schedule at start", async () => {
    await expect(
      startMockProviders({ providers: ["openai"], faults: { rules: [{ kind: "down" }] } }),
    ).rejects.toThrow(/rules\[0\]\.kind/);
  });

  it("seeded rate faults give the same statuses on a fresh set of mocks with the same seed", async () => {
    const statuses = async () => {
      const own = await startMockProviders({
        providers: ["openai"],
        faults: { seed: 77, rules: [{ kind: "unavailable", rate: 0.5 }] },
      });
      try {
        const seen: number[] = [];
        for (let attempt = 0; attempt < 12; attempt++) {
          seen.push((await chat(own, "openai", { model: "gpt-4o" })).status);
        }
        return seen;
      } finally {
        await own.close();
      }
    };
    const first = await statuses();
    expect(await statuses()).toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 503]));
  });
});
