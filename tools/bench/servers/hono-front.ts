/**
 * @module
 * A minimal hono front for the emulator's request handling, for the `emulator-http-layer`
 * benchmark: what moving the emulator's HTTP layer to hono would cost at the least. hono routes
 * the gateway paths on `@hono/node-server` and hands the matched request to the emulator's own
 * handler (`c.env.incoming`/`c.env.outgoing`, answered as `RESPONSE_ALREADY_SENT`), so the two
 * sides run the same handler logic and differ only in the HTTP layer. A full move would also
 * convert bodies to Web `Request`/`Response`, which costs more, never less.
 */
import http, { type RequestListener } from "node:http";
import { syncBuiltinESMExports } from "node:module";
import type { AddressInfo } from "node:net";
import { type HttpBindings, serve } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { Hono } from "hono";

/**
 * Records the request listener of every `node:http` server created from now on (the emulator
 * creates its own and does not expose it). The array fills as servers are created.
 */
export function captureRequestListeners(): RequestListener[] {
  const listeners: RequestListener[] = [];
  const original = http.createServer;
  const capturing = (...args: unknown[]) => {
    const listener = args.find((arg) => typeof arg === "function") as RequestListener | undefined;
    if (listener !== undefined) listeners.push(listener);
    return (original as (...values: unknown[]) => http.Server)(...args);
  };
  http.createServer = capturing as typeof http.createServer;
  // `import { createServer } from "node:http"` in the build reads the patched function too.
  syncBuiltinESMExports();
  return listeners;
}

/** The hono front, listening on 127.0.0.1. */
export interface HonoFront {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `listener` through hono's router on `@hono/node-server`, on a free port. */
export function startHonoFront(listener: RequestListener): Promise<HonoFront> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  const handOver = (context: { env: HttpBindings }) => {
    listener(context.env.incoming, context.env.outgoing);
    return RESPONSE_ALREADY_SENT;
  };
  // The emulator's gateway routes, as its own router declares them; anything else falls through.
  app.post("/v1/:account/:gateway/compat/chat/completions", handOver);
  app.all("/v1/:account/:gateway/:provider/*", handOver);
  app.post("/v1/:account/:gateway", handOver);
  app.all("*", handOver);
  return new Promise((resolve) => {
    const server = serve(
      { fetch: app.fetch, hostname: "127.0.0.1", port: 0 },
      (info: AddressInfo) => {
        resolve({
          url: `http://127.0.0.1:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              (server as http.Server).closeAllConnections();
            }),
        });
      },
    );
  });
}
