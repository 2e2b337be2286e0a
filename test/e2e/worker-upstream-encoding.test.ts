/**
 * Content codings and framing over real sockets (issue #23): the deployed bundle in workerd in front of a bare
 * Node server standing for the gateway, which repeats the key it was sent in a body encoded as the
 * call asks. workerd's fetch decodes exactly `gzip` and `br`, so those answers are scrubbed; any
 * other coding reaches the Worker still encoded and is refused with a 502, never passed on for
 * the app's client to decode. An answer with two `Content-Length` headers is a JSON 502.
 */
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatProdConfig, startWorkerOverServer, type WorkerOverServer } from "./worker-harness.ts";

const key = "sk-e2e-ENCODING-openai-5d20c7";
const config = chatProdConfig([{ provider: "openai", model: "gpt-4o-mini" }]);

const encoders: Record<string, (body: Buffer) => Buffer> = {
  gzip: (body) => gzipSync(body),
  br: (body) => brotliCompressSync(body),
  deflate: (body) => deflateSync(body),
  "x-gzip": (body) => gzipSync(body),
  "gzip, gzip": (body) => gzipSync(gzipSync(body)),
};

let stack: WorkerOverServer;
const acceptEncodings: (string | undefined)[] = [];

beforeAll(async () => {
  stack = await startWorkerOverServer(
    (request, response) => {
      request.resume();
      request.on("end", () => {
        if (request.headers["x-test-lengths"] !== undefined) {
          // Two Content-Length headers (RFC 9112 §6.3: a message to treat as unrecoverable).
          const [first, second] = String(request.headers["x-test-lengths"]).split(",");
          request.socket.end(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${first}\r\ncontent-length: ${second}\r\n\r\n{"ok":true}`,
          );
          return;
        }
        acceptEncodings.push(request.headers["accept-encoding"]);
        const encoding = String(request.headers["x-test-encoding"] ?? "gzip");
        const text = JSON.stringify({
          error: { message: `bad key ${request.headers.authorization}` },
        });
        const body = encoders[encoding]!(Buffer.from(text));
        response.writeHead(401, {
          "content-type": "application/json",
          "content-encoding": encoding,
          "content-length": String(body.byteLength),
        });
        response.end(body);
      });
    },
    {
      config,
      adminToken: "encoding-admin-token-0123456789",
      provider: "openai",
      key,
      label: "encoding",
      appName: "codings",
    },
  );
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

/** A compat call whose (fake) gateway answers in `encoding`; the body as raw bytes. */
async function chat(
  encoding: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; type: string; text: string }> {
  const { request } = await import("node:http");
  const url = new URL(
    `${stack.worker.url}/v1/${config.accountId}/chat-prod/compat/chat/completions`,
  );
  const body = JSON.stringify({ model: "openai/gpt-4o-mini", messages: [] });
  // node:http, not fetch: whatever the Worker sends is read as sent, never decoded here.
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "cf-aig-authorization": `Bearer ${stack.appToken}`,
          "accept-encoding": "identity",
          "x-test-encoding": encoding,
          ...extra,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            type: String(response.headers["content-type"] ?? ""),
            text: Buffer.concat(chunks).toString(),
          }),
        );
        response.on("error", reject);
      },
    );
    sent.on("error", reject);
    sent.end(body);
  });
}

describe("the Worker in workerd, in front of a gateway that answers encoded", () => {
  it("gzip and br (decoded by workerd) are scrubbed; deflate, x-gzip and gzip, gzip are refused", async () => {
    for (const encoding of ["gzip", "br"]) {
      const answer = await chat(encoding);
      expect({ encoding, status: answer.status }).toEqual({ encoding, status: 401 });
      expect(answer.text).toContain("[redacted]");
      expect(answer.text).not.toContain(key);
    }
    for (const encoding of ["deflate", "x-gzip", "gzip, gzip"]) {
      const answer = await chat(encoding);
      expect({ encoding, status: answer.status }).toEqual({ encoding, status: 502 });
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: "unsupported_encoding" } });
    }
    expect(new Set(acceptEncodings)).toEqual(new Set(["identity"]));
  }, 60_000);

  it("an answer with two Content-Length headers is a JSON 502, never a plain 500", async () => {
    for (const lengths of ["11,11", "11,14"]) {
      const answer = await chat("gzip", { "x-test-lengths": lengths });
      expect({ lengths, status: answer.status }).toEqual({ lengths, status: 502 });
      expect(answer.type).toContain("application/json");
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: expect.any(String) } });
    }
  }, 60_000);
});
