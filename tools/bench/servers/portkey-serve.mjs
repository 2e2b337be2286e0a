/**
 * @module
 * `@hono/node-server` as Portkey's gateway sees it: the same exports, except that `serve` always
 * binds 127.0.0.1 at a port the OS picks, and reports the bound address to the parent process
 * over IPC (`{ type: "listening", address, port }`). The process exits when its parent goes away.
 */
import * as nodeServer from "@hono/node-server";

export * from "@hono/node-server";

// The gateway lives only as long as the benchmark that started it, even if that one is killed.
process.once("disconnect", () => process.exit(0));

/** `serve` bound to loopback. */
export function serve(options, listener) {
  const server = nodeServer.serve({ ...options, hostname: "127.0.0.1", port: 0 }, (info) => {
    const bound = server.address();
    process.send?.({ type: "listening", address: bound.address, port: bound.port });
    listener?.(info);
  });
  return server;
}
