/**
 * HTTP framing the Worker meets in workerd, end to end over real sockets on 127.0.0.1: the
 * deployed bundle in front of a bare Node server standing for the gateway. An answer carrying
 * HTTP trailers after its chunked body leaves workerd's kept-open connection unusable (issue #23:
 * the next call was a 502 `gateway_unreachable`); every call is still served. And a request whose
 * own framing is malformed (two `Content-Length` headers, which workerd answers with a plain-text
 * 500 before the Worker sees it) gets a JSON 400 from the local front (`src/demo/framing-front.ts`),
 * as Cloudflare's edge refuses such requests itself in production.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatProdConfig, startWorkerOverServer, type WorkerOverServer } from "./worker-harness.ts";

const config = chatProdConfig([{ provider: "openai", model: "gpt-4o-mini" }]);

let stack: WorkerOverServer;
const received: string[] = [];

beforeAll(async () => {
  // The gateway answers every call in chunks and ends it with a trailer section, as a server
  // may (RFC 9112 §7.1.2), over a connection it keeps open.
  stack = await startWorkerOverServer(
    (request, response) => {
      request.resume();
      request.on("end", () => {
        received.push(request.url ?? "");
        response.writeHead(200, { "content-type": "application/json", trailer: "x-checksum" });
        response.write(JSON.stringify({ object: "chat.completion", choices: [] }));
        response.addTrailers({ "x-checksum": "sha256-0" });
        response.end();
      });
    },
    {
      config,
      adminToken: "framing-admin-token-0123456789",
      provider: "openai",
      key: "sk-framing-test-000001",
      label: "framing",
      appName: "framing",
    },
  );
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

function chat(): Promise<Response> {
  return fetch(`${stack.worker.url}/v1/${config.accountId}/chat-prod/compat/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "cf-aig-authorization": `Bearer ${stack.appToken}`,
    },
    body: JSON.stringify({
      model: "openai/gpt-4o-mini",
      messages: [{ role: "user", content: "hi" }],
    }),
  });
}

describe("the Worker in workerd, in front of a gateway that sends HTTP trailers", () => {
  it("serves every call, not only the first on a connection", async () => {
    for (let call = 0; call < 3; call += 1) {
      const response = await chat();
      expect({ call, status: response.status }).toEqual({ call, status: 200 });
      expect(await response.json()).toMatchObject({ object: "chat.completion" });
    }
    expect(received.length).toBeGreaterThanOrEqual(3);
  }, 60_000);
});

/** Sends `raw` bytes on a fresh socket and reads the whole answer (the server closes it). */
function rawExchange(url: string, raw: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(raw));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.on("error", reject);
    socket.setTimeout(20_000, () => socket.destroy(new Error("no answer in 20 s")));
  });
}

/** The status line, headers and body of a raw HTTP/1.1 answer (its body as sent). */
function parseAnswer(text: string): { status: number; headers: string; body: string } {
  const split = text.indexOf("\r\n\r\n");
  const head = text.slice(0, split);
  return {
    status: Number(head.split(" ")[1]),
    headers: head.toLowerCase(),
    body: text.slice(split + 4),
  };
}

describe("malformed framing from an app", () => {
  const path = () => `/v1/${config.accountId}/chat-prod/compat/chat/completions`;
  const body = JSON.stringify({ model: "openai/gpt-4o-mini", messages: [] });
  const head = (host: string, extra: string) =>
    `POST ${path()} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\ncf-aig-authorization: Bearer ${stack.appToken}\r\nconnection: close\r\n${extra}\r\n`;

  it.each([
    [
      "two Content-Length headers",
      `content-length: ${body.length}\r\ncontent-length: ${body.length}\r\n`,
      body,
    ],
    [
      "Content-Length with Transfer-Encoding",
      `content-length: ${body.length}\r\ntransfer-encoding: chunked\r\n`,
      `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    ],
    ["a bad chunk size", "transfer-encoding: chunked\r\n", `zz\r\n${body}\r\n0\r\n\r\n`],
  ])(
    "%s: a 400 with the JSON error shape, never workerd's plain-text 500",
    async (_, headers, payload) => {
      const host = new URL(stack.worker.url).host;
      const answer = parseAnswer(
        await rawExchange(stack.worker.url, `${head(host, headers)}${payload}`),
      );
      expect(answer.status).toBe(400);
      expect(answer.headers).toContain("content-type: application/json");
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "malformed_request" } });
    },
    60_000,
  );

  it("workerd itself, without the front, answers two Content-Length headers with a plain-text 500", async () => {
    const host = new URL(stack.worker.workerdUrl).host;
    const headers = `content-length: ${body.length}\r\ncontent-length: ${body.length}\r\n`;
    const answer = parseAnswer(
      await rawExchange(stack.worker.workerdUrl, `${head(host, headers)}${body}`),
    );
    expect(answer.status).toBe(500);
    expect(answer.headers).not.toContain("application/json");
  }, 60_000);

  it("a chunked body with trailers is served (the front drops the trailers)", async () => {
    const host = new URL(stack.worker.url).host;
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\nx-checksum: sha256-0\r\n\r\n`;
    const answer = parseAnswer(
      await rawExchange(
        stack.worker.url,
        `${head(host, "transfer-encoding: chunked\r\ntrailer: x-checksum\r\n")}${chunked}`,
      ),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers).toContain("content-type: application/json");
  }, 60_000);
});
