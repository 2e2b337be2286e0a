/**
 * @module
 * Child-process entry: runs the emulator alone in its process, in front of upstreams the parent
 * names (its mock providers), so the gateway under test has a core of its own like Portkey. It
 * runs the build (`dist/`), the code `stepwise dev` runs; the parent builds it first (see
 * `emulator.ts`). Receives an {@link EmulatorChildSettings} message, answers
 * `{ type: "listening", ... }`, stops on SIGTERM or when the parent goes away.
 */
import type * as ConfigModule from "../../../src/config/index.ts";
import type * as EmulatorModule from "../../../src/emulator/index.ts";
import type { Emulator } from "../../../src/emulator/index.ts";

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
}

let emulator: Emulator | undefined;

async function stop(code: number): Promise<never> {
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
  }).then(
    (started) => {
      emulator = started;
      const url = new URL(started.url);
      process.send?.({ type: "listening", address: url.hostname, port: Number(url.port) });
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      void stop(1);
    },
  );
});
