/**
 * The upstream transports against real loopback servers: the default `node:http` one and the
 * injected-`fetch` one keep the same contract (what is sent, what comes back, the timeout to
 * first byte, cut connections, aborts); the `node:http` one also keeps connections alive.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { AttemptResult, UpstreamTransport } from "../../../src/emulator/transport/attempt.ts";
import { fetchTransport } from "../../../src/emulator/transport/fetch-transport.ts";
import { createHttpTransport } from "../../../src/emulator/transport/http-transport.ts";

interface Upstream {
  readonly url: string;
  /** Connections opened so far. */
  connections(): number;
  /** Requests whose connection closed before their answer ended. */
  readonly abandoned: string[];
  readonly bodies: string[];
  readonly headers: IncomingMessage["headers"][];
}

const servers: Server[] = [];
const closers: (() => void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  }
});

async function startUpstream(
  answer: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<Upstream> {
  let connections = 0;
  const upstream = { abandoned: [] as string[], bodies: [] as string[], headers: [] as never[] };
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    upstream.bodies.push(Buffer.concat(chunks).toString("utf8"));
    upstream.headers.push(request.headers as never);
    response.on("close", () => {
      if (!response.writableFinished) upstream.abandoned.push(request.url ?? "");
    });
    answer(request, response);
  });
  server.on("connection", () => connections++);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  return {
    ...upstream,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
  };
}

const never = new AbortController().signal;

function post(url: string, body = '{"model":"m"}') {
  return {
    url,
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: Buffer.from(body),
  };
}

async function readAll(result: AttemptResult): Promise<string> {
  if (result.kind !== "response") throw new Error(`not a response: ${JSON.stringify(result)}`);
  if (result.body.kind === "buffered") return result.body.bytes.toString("utf8");
  let text = "";
  for await (const chunk of result.body.chunks) text += Buffer.from(chunk).toString("utf8");
  return text;
}

const transports: [string, () => UpstreamTransport][] = [
  [
    "node:http",
    () => {
      const transport = createHttpTransport();
      closers.push(() => transport.close());
      return transport.send;
    },
  ],
  ["fetch", () => fetchTransport((input, init) => fetch(input, init))],
];

describe.each(transports)("the %s transport", (_name, makeTransport) => {
  it("sends the method, path, query, headers and body, and returns the whole answer", async () => {
    const upstream = await startUpstream((request, response) => {
      response.writeHead(201, [
        "content-type",
        "application/json",
        "set-cookie",
        "a=1",
        "set-cookie",
        "b=2",
        "x-request-url",
        request.url ?? "",
      ]);
      response.end('{"ok":true}');
    });
    const result = await makeTransport()(post(`${upstream.url}/v1/chat?x=1`, '{"model":"é"}'), {
      timeoutMs: 5_000,
      signal: never,
    });
    expect(result).toMatchObject({ kind: "response", status: 201 });
    if (result.kind !== "response") return;
    expect(result.headers).toContainEqual(["x-request-url", "/v1/chat?x=1"]);
    expect(result.headers.filter(([name]) => name === "set-cookie")).toEqual([
      ["set-cookie", "a=1"],
      ["set-cookie", "b=2"],
    ]);
    expect(await readAll(result)).toBe('{"ok":true}');
    expect(upstream.bodies).toEqual(['{"model":"é"}']);
    expect(upstream.headers[0]).toMatchObject({
      "content-type": "application/json",
      authorization: "Bearer k",
      "content-length": String(Buffer.byteLength('{"model":"é"}')),
    });
  });

  it("times out when the head comes but no body byte does", async () => {
    const upstream = await startUpstream((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.flushHeaders();
    });
    const result = await makeTransport()(post(upstream.url), { timeoutMs: 30, signal: never });
    expect(result).toEqual({ kind: "timeout", timeoutMs: 30 });
  });

  it("calls a connection that dies after the head a network error", async () => {
    const upstream = await startUpstream((_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      response.write('{"partial":');
      setImmediate(() => response.socket?.destroy());
    });
    const result = await makeTransport()(post(upstream.url), { timeoutMs: 5_000, signal: never });
    expect(result.kind).toBe("network-error");
  });

  it("refuses a body over the limit as a network error", async () => {
    const upstream = await startUpstream((_request, response) => response.end("x".repeat(1_000)));
    const result = await makeTransport()(post(upstream.url), {
      timeoutMs: 5_000,
      signal: never,
      maxBodyBytes: 100,
    });
    expect(result).toEqual({
      kind: "network-error",
      message: "upstream body larger than 100 bytes",
    });
  });

  it("hands an event stream on after its first chunk, and abort() stops the upstream", async () => {
    const upstream = await startUpstream((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: 1\n\n");
      // The rest never comes: the stream is open when the attempt returns.
    });
    const result = await makeTransport()(post(upstream.url), { timeoutMs: 5_000, signal: never });
    if (result.kind !== "response" || result.body.kind !== "stream") {
      throw new Error(`expected a stream, got ${result.kind}`);
    }
    const iterator = result.body.chunks[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(Buffer.from(first.value as Uint8Array).toString("utf8")).toBe("data: 1\n\n");
    result.body.abort();
    await expect(iterator.next()).rejects.toBeDefined();
    await expect.poll(() => upstream.abandoned).toHaveLength(1);
  });

  it("passes a whole stream through chunk by chunk", async () => {
    const upstream = await startUpstream((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: 1\n\n");
      setImmediate(() => response.end("data: 2\n\n"));
    });
    const result = await makeTransport()(post(upstream.url), { timeoutMs: 5_000, signal: never });
    expect(result.kind === "response" && result.body.kind).toBe("stream");
    expect(await readAll(result)).toBe("data: 1\n\ndata: 2\n\n");
  });

  it("stops waiting and closes the upstream request when the signal aborts", async () => {
    const upstream = await startUpstream(() => {
      // Never answers.
    });
    const controller = new AbortController();
    const pending = makeTransport()(post(upstream.url), {
      timeoutMs: undefined,
      signal: controller.signal,
    });
    await expect.poll(() => upstream.bodies).toHaveLength(1);
    controller.abort();
    expect(await pending).toEqual({ kind: "network-error", message: "request aborted" });
    await expect.poll(() => upstream.abandoned).toHaveLength(1);
  });

  it("answers a refused connection and a bad header value with a network error, never a throw", async () => {
    const upstream = await startUpstream((_request, response) => response.end());
    const closed = upstream.url;
    await (async () => {
      const server = servers.pop()!;
      server.close();
      await once(server, "close");
    })();
    const transport = makeTransport();
    expect((await transport(post(closed), { timeoutMs: 5_000, signal: never })).kind).toBe(
      "network-error",
    );
    const bad = { ...post(closed), headers: { "x-bad": "a\u0007b" } };
    expect((await transport(bad, { timeoutMs: 5_000, signal: never })).kind).toBe("network-error");
  });
});

describe("the node:http transport", () => {
  it("keeps one connection alive across sequential attempts", async () => {
    const upstream = await startUpstream((_request, response) => response.end("{}"));
    const transport = createHttpTransport();
    closers.push(() => transport.close());
    for (let index = 0; index < 5; index++) {
      const result = await transport.send(post(upstream.url), { timeoutMs: 5_000, signal: never });
      expect(result.kind).toBe("response");
    }
    expect(upstream.connections()).toBe(1);
  });

  it("sends no body for GET and keeps the query", async () => {
    const upstream = await startUpstream((request, response) => response.end(request.url));
    const transport = createHttpTransport();
    closers.push(() => transport.close());
    const result = await transport.send(
      { url: `${upstream.url}/v1/models?limit=2`, method: "GET", headers: {}, body: undefined },
      { timeoutMs: 5_000, signal: never },
    );
    expect(await readAll(result)).toBe("/v1/models?limit=2");
    expect(upstream.bodies).toEqual([""]);
    expect(upstream.headers[0]?.["content-length"]).toBeUndefined();
  });
});
