/**
 * @module
 * Everything a set of mock servers holds open: sockets and timers. `close()` destroys and clears
 * them all, so a test that stops its mocks never hangs on a held (`no-response`) or stalled
 * connection.
 */

import type { Server } from "node:http";
import type { Socket } from "node:net";

/** Tracks the servers, sockets and timers of one set of mock providers. */
export class MockLifecycle {
  readonly #servers = new Set<Server>();
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  /** Tracks a server and every socket it accepts. */
  track(server: Server): void {
    this.#servers.add(server);
    server.on("connection", (socket: Socket) => {
      if (this.#closed) {
        socket.destroy();
        return;
      }
      this.#sockets.add(socket);
      socket.once("close", () => this.#sockets.delete(socket));
    });
  }

  /**
   * Runs `action` after `delayMs` unless the mocks close first. Returns a cancel function, for
   * when the client goes away while the timer waits.
   */
  after(delayMs: number, action: () => void): () => void {
    if (this.#closed) return () => undefined;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      action();
    }, delayMs);
    this.#timers.add(timer);
    return () => {
      clearTimeout(timer);
      this.#timers.delete(timer);
    };
  }

  /** Clears every timer, destroys every socket and closes every server. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    await Promise.all(
      [...this.#servers].map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            if (!server.listening) {
              resolve();
              return;
            }
            server.close(() => resolve());
          }),
      ),
    );
    this.#servers.clear();
  }
}
