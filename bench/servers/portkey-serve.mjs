/**
 * @module
 * `@hono/node-server` as Portkey's gateway sees it: the same exports, except that `serve` always
 * binds 127.0.0.1 at a port the OS picks, and reports the bound address to the parent process
 * over IPC (`{ type: "listening", address, port }`).
 */
import * as nodeServer from "@hono/node-server";

export * from "@hono/node-server";

/** `serve` bound to loopback. */
export function serve(options, listener) {
  const server = nodeServer.serve({ ...options, hostname: "127.0.0.1", port: 0 }, (info) => {
    const bound = server.address();
    process.send?.({ type: "listening", address: bound.address, port: bound.port });
    listener?.(info);
  });
  return server;
}
