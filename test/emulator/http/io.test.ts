/**
 * The emulator's request reading: request paths as the URL parser gives them (without parsing
 * plain targets), and bounded body reads.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GatewayRequestError } from "../../../src/emulator/errors.ts";
import { readRequestBody } from "../../../src/emulator/http/io.ts";
import { requestPath } from "../../../src/emulator/http/request-path.ts";

describe("requestPath", () => {
  it("gives the URL parser's path for any target", () => {
    const part = fc.constantFrom(
      "v1",
      "acct",
      "gw",
      ".",
      "..",
      "%2e",
      "%2E%2e",
      "a%20b",
      "é",
      "a b",
      "\\",
      "",
      "?q=1",
      "#f",
      '"',
      "{x}",
      "%zz",
      "//",
    );
    const target = fc
      .array(part, { maxLength: 6 })
      .chain((parts) =>
        fc.constantFrom(`/${parts.join("/")}`, parts.join("/"), `//${parts.join("/")}`),
      );
    fc.assert(
      fc.property(target, (value) => {
        let expected: string;
        try {
          expected = new URL(value, "http://emulator.invalid").pathname;
        } catch {
          expect(() => requestPath(value)).toThrow();
          return;
        }
        expect(requestPath(value)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("readRequestBody", () => {
  async function withServer(
    limit: number,
    send: (url: string) => Promise<unknown>,
  ): Promise<{ body?: string; error?: unknown }> {
    let settle: (value: { body?: string; error?: unknown }) => void = () => undefined;
    const result = new Promise<{ body?: string; error?: unknown }>((resolve) => {
      settle = resolve;
    });
    const server = createServer((request, response) => {
      readRequestBody(request, limit).then(
        (body) => {
          settle({ body: body.toString("utf8") });
          response.end("ok");
        },
        (error: unknown) => {
          settle({ error });
          response.statusCode = 413;
          response.end("refused");
        },
      );
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      await send(url);
      return await result;
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }

  it("reads a body sent in several chunks", async () => {
    const result = await withServer(100, (url) =>
      fetch(url, {
        method: "POST",
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("hello, "));
            controller.enqueue(new TextEncoder().encode("world"));
            controller.close();
          },
        }),
        duplex: "half",
      } as RequestInit),
    );
    expect(result.body).toBe("hello, world");
  });

  it("refuses a body over the limit with 413, and the refusal reaches the client", async () => {
    let status = 0;
    const result = await withServer(10, async (url) => {
      status = (await fetch(url, { method: "POST", body: "x".repeat(1_000) })).status;
    });
    expect(GatewayRequestError.isInstance(result.error)).toBe(true);
    expect((result.error as GatewayRequestError).status).toBe(413);
    expect(status).toBe(413);
  });
});
