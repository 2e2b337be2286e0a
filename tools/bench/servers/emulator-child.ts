/**
 * @module
 * Child-process entry: runs the emulator alone in its process, in front of upstreams the parent
 * names (its mock providers), so the gateway under test has a core of its own like Portkey. It
 * runs the build (`dist/`), the code `stepwise dev` runs; the parent builds it first (see
 * `emulator.ts`). Receives an {@link EmulatorChildSettings} message, answers
 * `{ type: "listening", ... }`, stops on SIGTERM or when the parent goes away.
 *
 * With `front: "hono"` the same emulator is also served through a hono app on
 * `@hono/node-server` (see `hono-front.ts`), and that is the address the parent gets.
 */
import type * as ConfigModule from "../../../src/config/index.ts";
import type * as EmulatorModule from "../../../src/emulator/index.ts";
import type { Emulator } from "../../../src/emulator/index.ts";
import { captureRequestListeners, type HonoFront, startHonoFront } from "./hono-front.ts";

// Typed by the sources, loaded from the build (a computed path, so type checks need no build).
const dist = (entry: string) => new URL(`../../../dist/${entry}/index.js`, import.meta.url).href;
const { parseConfig } = (await import(dist("config"))) as typeof ConfigModule;
const { startEmulator } = (await import(dist("emulator"))) as typeof EmulatorModule;

/** What the parent sends. */
export interface EmulatorChildSettings {
  readonly type: "start";
  /** A Stepwise config, as `parseConfig` accepts it. */
  readonly config: unknown;
  readonly upstreams: Readonly<Record<string, string>>;
  /** The HTTP layer in front of the emulator's request handling; default `node-http`. */
  readonly front?: "node-http" | "hono";
}

let emulator: Emulator | undefined;
let front: HonoFront | undefined;
// Before the emulator creates its server, so its request listener can be served by hono too.
const listeners = captureRequestListeners();

async function stop(code: number): Promise<never> {
  await front?.close().catch(() => undefined);
  await emulator?.close().catch(() => undefined);
  process.exit(code);
}

process.once("SIGTERM", () => void stop(0));
process.once("disconnect", () => void stop(0));
process.once("message", (message: EmulatorChildSettings) => {
  startEmulator({
    config: parseConfig(message.config),
    upstreams: message.upstreams,
    mocks: false,
    onError: (error) => console.error(error),
  })
    .then(async (started) => {
      emulator = started;
      if (message.front !== "hono") return started.url;
      const listener = listeners.at(-1);
      if (listener === undefined) throw new Error("The emulator created no node:http server.");
      front = await startHonoFront(listener);
      return front.url;
    })
    .then(
      (served) => {
        const url = new URL(served);
        process.send?.({ type: "listening", address: url.hostname, port: Number(url.port) });
      },
      (error: unknown) => {
        console.error(error instanceof Error ? error.message : error);
        void stop(1);
      },
    );
});
