/**
 * Content codings over real sockets (issue #23): the deployed bundle in workerd in front of a bare
 * Node server standing for the gateway, which repeats the key it was sent in a body encoded as the
 * call asks. workerd's fetch decodes exactly `gzip` and `br`, so those answers are scrubbed; any
 * other coding reaches the Worker still encoded and is refused with a 502, never passed on for
 * the app's client to decode.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig, workerViewText } from "../../src/config/index.ts";
import { createAppToken, rotateKey } from "../../src/worker-admin/index.ts";
import {
  buildWorkerBundle,
  type RunningWorker,
  startWorker,
  type WorkerBundle,
} from "./worker-harness.ts";

const adminToken = "encoding-admin-token-0123456789";
const key = "sk-e2e-ENCODING-openai-5d20c7";
const config = parseConfig({
  accountId: "0123456789abcdef0123456789abcdef",
  gateways: [
    { id: "chat-prod", routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } },
  ],
  keys: { providers: ["openai"] },
  worker: { healthProbe: { enabled: false } },
});

const encoders: Record<string, (body: Buffer) => Buffer> = {
  gzip: (body) => gzipSync(body),
  br: (body) => brotliCompressSync(body),
  deflate: (body) => deflateSync(body),
  "x-gzip": (body) => gzipSync(body),
  "gzip, gzip": (body) => gzipSync(gzipSync(body)),
};

let bundle: WorkerBundle;
let worker: RunningWorker;
let gateway: http.Server;
let appToken: string;
const acceptEncodings: (string | undefined)[] = [];

beforeAll(async () => {
  gateway = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
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
  });
  await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
  const { port } = gateway.address() as AddressInfo;
  bundle = await buildWorkerBundle();
  worker = await startWorker(bundle.scriptPath, {
    ROTATE_TOKEN: adminToken,
    GATEWAY_URL: `http://127.0.0.1:${port}`,
    STEPWISE_CONFIG: workerViewText(config),
  });
  await rotateKey({
    workerUrl: worker.url,
    provider: "openai",
    key,
    token: adminToken,
    label: "encoding",
    fetch: globalThis.fetch,
  });
  appToken = (await createAppToken({ workerUrl: worker.url, token: adminToken, name: "codings" }))
    .token;
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await bundle?.remove();
  await new Promise((resolve) => gateway?.close(resolve));
});

/** A compat call whose (fake) gateway answers in `encoding`; the body as raw bytes. */
async function chat(encoding: string): Promise<{ status: number; text: string }> {
  const { request } = await import("node:http");
  const url = new URL(`${worker.url}/v1/${config.accountId}/chat-prod/compat/chat/completions`);
  const body = JSON.stringify({ model: "openai/gpt-4o-mini", messages: [] });
  // node:http, not fetch: whatever the Worker sends is read as sent, never decoded here.
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "cf-aig-authorization": `Bearer ${appToken}`,
          "accept-encoding": "identity",
          "x-test-encoding": encoding,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
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
});
