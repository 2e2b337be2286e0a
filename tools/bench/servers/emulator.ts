/**
 * @module
 * Starts the emulator in a child process of its own (see `emulator-child.ts`), from a build of
 * the current sources made once per benchmark process.
 */
import { fileURLToPath } from "node:url";
import { buildJavaScript } from "../../build/build.ts";
import { type ChildServer, startChildServer } from "./child-server.ts";
import type { EmulatorChildSettings } from "./emulator-child.ts";

const entry = fileURLToPath(new URL("./emulator-child.ts", import.meta.url));

let built: Promise<void> | undefined;

/** Starts the emulator with a config in front of the given upstreams (on node:http, or hono). */
export async function startEmulatorProcess(
  config: unknown,
  upstreams: Readonly<Record<string, string>>,
  front: EmulatorChildSettings["front"] = "node-http",
): Promise<ChildServer> {
  // `dist/` as the sources are now (about a second), so a stale build is never measured.
  built ??= buildJavaScript();
  await built;
  const settings: EmulatorChildSettings = { type: "start", config, upstreams, front };
  return startChildServer({
    name: front === "hono" ? "The emulator behind hono" : "The emulator",
    modulePath: entry,
    execArgv: ["--import", "tsx"],
    message: settings,
  });
}
