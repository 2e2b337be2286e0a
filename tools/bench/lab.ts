/**
 * @module
 * Starts the pieces several benchmarks share, each registered for cleanup: mock providers in
 * this process (so benchmarks can switch their faults), the emulator and Portkey's gateway in
 * child processes of their own, in front of those mocks.
 */
import { fileURLToPath } from "node:url";
import { type MockProviders, startMockProviders } from "../../src/emulator/mocks/index.ts";
import type { Cleanup } from "./cleanup.ts";
import { benchConfig, providers } from "./fixtures.ts";
import { type ChildServer, startChildServer } from "./servers/child-server.ts";
import { startEmulatorProcess } from "./servers/emulator.ts";
import { startPortkey } from "./servers/portkey.ts";

/** Mock providers for the route's providers, healthy until a benchmark sets faults. */
export async function startMocks(cleanup: Cleanup): Promise<MockProviders> {
  const mocks = await startMockProviders({ providers: [...providers] });
  return cleanup.add(mocks, (started) => started.close());
}

/** The emulator in its own process, in front of the mocks. */
export async function startEmulatorChild(
  cleanup: Cleanup,
  mocks: Pick<MockProviders, "urls">,
  stepTimeoutMs?: number,
  front?: "node-http" | "hono",
): Promise<ChildServer> {
  const emulator = await startEmulatorProcess(benchConfig(stepTimeoutMs), mocks.urls, front);
  return cleanup.add(emulator, (started) => started.close());
}

/** The bare pass-through (`servers/pass-through.mjs`) in its own process, before `upstreamUrl`. */
export async function startPassThroughChild(
  cleanup: Cleanup,
  upstreamUrl: string,
): Promise<ChildServer> {
  const server = await startChildServer({
    name: "The pass-through",
    modulePath: fileURLToPath(new URL("./servers/pass-through.mjs", import.meta.url)),
    args: [upstreamUrl],
  });
  return cleanup.add(server, (started) => started.close());
}

/** Portkey's gateway in its own process. */
export async function startPortkeyChild(cleanup: Cleanup): Promise<ChildServer> {
  const portkey = await startPortkey();
  return cleanup.add(portkey, (started) => started.close());
}

/** Every attempt the mocks logged is kept in memory; benchmarks drop them between phases. */
export function resetMocks(mocks: MockProviders): void {
  mocks.setFaults({ rules: [] });
  mocks.clearAttempts();
}
