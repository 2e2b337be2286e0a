/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * The scrubber fails closed on encodings (issue #23): the Worker asks the gateway for an
 * unencoded answer, and a body whose `content-encoding` workerd's fetch did not decode (anything
 * but exactly `gzip` or `br`) is refused with a 502, since the scrubber would see compressed bytes
 * and the app's client would decode them to the key. workerd compares the whole header value with
 * "gzip" and "br" byte for byte (`getContentEncoding`, src/workerd/api/system-streams.c++).
 */
import { describe, expect, it } from "vitest";
import { accountId, createHarness, type GatewayCall } from "../harness.ts";

const key = "sk-ENCODING-openai-7c41d09e";
const path = `/v1/${accountId}/chat/compat/chat/completions`;
const body = { model: "openai/gpt-4o-mini", messages: [] };

async function compress(text: string, format: CompressionFormat): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream(format));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A gateway whose answer repeats the key it was sent, encoded as `encoding` says. */
function encodedEcho(encoding: string, bytes: (text: string) => Promise<Uint8Array>, type: string) {
  return async (call: GatewayCall): Promise<Response> => {
    const text = `{"error":{"message":"Incorrect API key provided: ${call.headers.authorization}"}}`;
    const encoded = await bytes(text);
    return new Response(encoded as Uint8Array<ArrayBuffer>, {
      status: 401,
      headers: {
        "content-type": type,
        "content-encoding": encoding,
        "content-length": String(encoded.byteLength),
      },
    });
  };
}

async function setUp(gateway: (call: GatewayCall) => Promise<Response>) {
  const harness = createHarness({ gateway });
  await harness.rotate("openai", key);
  const app = await harness.createApp();
  await harness.advance(2_000);
  return { harness, app };
}

describe("answers in an encoding the Worker did not decode", () => {
  const deflate = (text: string) => compress(text, "deflate");
  const gzipTwice = async (text: string) =>
    compress(new TextDecoder("latin1").decode(await compress(text, "gzip")), "gzip");
  const cases: [string, (text: string) => Promise<Uint8Array>][] = [
    ["deflate", deflate],
    ["gzip, gzip", gzipTwice],
    ["x-gzip", (text) => compress(text, "gzip")],
    ["GZIP", (text) => compress(text, "gzip")],
    ["deflate-raw", (text) => compress(text, "deflate-raw")],
    ["zstd", deflate],
    ["identity, deflate", deflate],
  ];
  for (const type of ["application/json", "text/event-stream"]) {
    it.each(cases)(
      `are refused with a 502, never passed on: %s (${type})`,
      async (encoding, bytes) => {
        const { harness, app } = await setUp(encodedEcho(encoding, bytes, type));
        const response = await harness.call("POST", path, { token: app.token, body });
        // The gateway did get the key, so an answer passed on would carry it.
        expect(harness.gatewayCalls.at(-1)?.headers.authorization).toBe(`Bearer ${key}`);
        expect(response.status).toBe(502);
        expect(response.headers.get("content-encoding")).toBeNull();
        expect(response.json()).toMatchObject({ error: { code: "unsupported_encoding" } });
        expect(response.text).not.toContain(key);
      },
    );
  }

  it("an answer workerd decoded (gzip or br: the header kept, the bytes plain) is scrubbed and passed on", async () => {
    for (const encoding of ["gzip", "br", "identity"]) {
      const plain = async (text: string) => new TextEncoder().encode(text);
      const { harness, app } = await setUp(encodedEcho(encoding, plain, "application/json"));
      const response = await harness.call("POST", path, { token: app.token, body });
      expect({ encoding, status: response.status }).toEqual({ encoding, status: 401 });
      expect(response.text).toContain("[redacted]");
      expect(response.text).not.toContain(key);
    }
  });
});

describe("what the Worker asks the gateway for", () => {
  it("accept-encoding: identity, whatever the app accepts", async () => {
    const { harness, app } = await setUp(async () => Response.json({ ok: true }));
    await harness.call("POST", path, {
      token: app.token,
      body,
      headers: { "accept-encoding": "gzip, deflate, br, zstd" },
    });
    await harness.call("POST", `/v1/${accountId}/chat/openai/chat/completions`, {
      token: app.token,
      body: { model: "gpt-4o-mini" },
      headers: { "accept-encoding": "deflate" },
    });
    await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: [{ provider: "openai", endpoint: "chat/completions", headers: {}, query: {} }],
    });
    expect(harness.gatewayCalls.map((call) => call.headers["accept-encoding"])).toEqual([
      "identity",
      "identity",
      "identity",
    ]);
  });
});
