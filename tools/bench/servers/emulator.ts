/**
 * @module
 * Starts the emulator in a child process of its own (see `emulator-child.ts`).
 */
import { fileURLToPath } from "node:url";
import { type ChildServer, startChildServer } from "./child-server.ts";
import type { EmulatorChildSettings } from "./emulator-child.ts";

const entry = fileURLToPath(new URL("./emulator-child.ts", import.meta.url));

/** Starts the emulator with a config in front of the given upstreams. */
export function startEmulatorProcess(
  config: unknown,
  upstreams: Readonly<Record<string, string>>,
): Promise<ChildServer> {
  const settings: EmulatorChildSettings = { type: "start", config, upstreams };
  return startChildServer({
    name: "The emulator",
    modulePath: entry,
    execArgv: ["--import", "tsx"],
    message: settings,
  });
}
