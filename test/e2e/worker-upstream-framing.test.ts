/**
 * HTTP framing the Worker meets in workerd, end to end over real sockets on 127.0.0.1: the
 * deployed bundle in front of a bare Node server standing for the gateway. An answer carrying
 * HTTP trailers after its chunked body leaves workerd's kept-open connection unusable (issue #23:
 * the next call was a 502 `gateway_unreachable`); every call is still served.
 */
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
