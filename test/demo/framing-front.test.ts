/**
 * The local front before workerd (`src/demo/framing-front.ts`), in front of a bare Node server
 * standing for workerd: a stream's chunks pass at once (the next is written only after the app
 * read the last), bodies and headers pass both ways, an app that leaves ends the call upstream,
 * and an upstream that is gone is a JSON 502.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type FramingFront, startFramingFront } from "../../src/demo/framing-front.ts";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function upstream(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  open.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function front(target: string): Promise<FramingFront> {
  const started = await startFramingFront(target);
  open.push(started);
  return started;
}

describe("the framing front", () => {
  it("passes each SSE chunk at once: the next is sent only once the app has read the last", async () => {
    const read: string[] = [];
    let wake: () => void = () => undefined;
    const target = await upstream(async (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (let event = 0; event < 3; event++) {
        const seen = new Promise<void>((resolve) => (wake = resolve));
        response.write(`data: ${event}\n\n`);
        await seen;
      }
      response.end();
    });
    const running = await front(target);
    const answer = await fetch(`${running.url}/stream`);
    expect(answer.headers.get("content-type")).toBe("text/event-stream");
    const reader = answer.body!.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      read.push(decoder.decode(value));
      wake();
    }
    expect(read.join("")).toBe("data: 0\n\ndata: 1\n\ndata: 2\n\n");
  });

  it("passes the method, path, headers and body there, and the status, headers and body back", async () => {
    const target = await upstream((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        response.writeHead(201, {
          "x-seen": `${request.method} ${request.url} ${request.headers["x-app"]}`,
        });
        response.end(Buffer.concat(chunks));
      });
    });
    const running = await front(target);
    const answer = await fetch(`${running.url}/v1/a?b=c`, {
      method: "PUT",
      headers: { "x-app": "one" },
      body: "the body",
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get("x-seen")).toBe("PUT /v1/a?b=c one");
    expect(await answer.text()).toBe("the body");
  });

  it("ends the call upstream when the app leaves", async () => {
    let closed: () => void = () => undefined;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    const target = await upstream((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: first\n\n");
      response.on("close", () => closed());
    });
    const running = await front(target);
    const abort = new AbortController();
    const answer = await fetch(`${running.url}/stream`, { signal: abort.signal });
    await answer.body!.getReader().read();
    abort.abort();
    await upstreamClosed;
  });

  it("answers a JSON 502 when workerd is not there", async () => {
    const target = await upstream((_request, response) => response.end());
    await open.pop()!.close();
    const running = await front(target);
    const answer = await fetch(`${running.url}/x`);
    expect(answer.status).toBe(502);
    expect(await answer.json()).toMatchObject({ error: { code: "worker_unreachable" } });
  });
});
