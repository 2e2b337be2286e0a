/**
 * @module
 * The memory part of the gateway throughput benchmark: the emulator alone for many requests of
 * the healthy route, every one logged with its bodies as by default, and its resident memory
 * after them (its logs and caches are bounded; the memory must stay so).
 */
import type { MockProviders } from "../../src/emulator/mocks/index.ts";
import { primary, secondary } from "./fixtures.ts";
import { emulatorCall } from "./gateway-calls.ts";
import { resetMocks } from "./lab.ts";
import { type Post, runLoad } from "./load.ts";
import type { ChildServer } from "./servers/child-server.ts";
import { formatCount, throughput } from "./stats.ts";
import type { BenchContext } from "./types.ts";

/** Requests through the emulator alone before its resident memory is read (quick: fewer). */
export const memoryRequests = { full: 300_000, quick: 20_000 };

/** The emulator alone for `requests` healthy calls; its resident memory after them. */
export interface MemoryRun {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly rssBytes: number;
  readonly peakRssBytes: number;
}

export async function memoryRun(
  context: BenchContext,
  mocks: MockProviders,
  emulator: ChildServer,
  post: Post,
  concurrency: number,
): Promise<MemoryRun> {
  resetMocks(mocks);
  const requests = context.quick ? memoryRequests.quick : memoryRequests.full;
  const call = emulatorCall(emulator.url, [primary, secondary], 0, post);
  const block = 20_000;
  let elapsedMs = 0;
  for (let done = 0; done < requests; done += block) {
    const result = await runLoad(call, { count: Math.min(block, requests - done), concurrency });
    if (result.failures > 0) throw new Error(result.firstFailure);
    elapsedMs += result.elapsedMs;
    // The mocks log every attempt; the emulator's memory is what is measured, not theirs.
    mocks.clearAttempts();
    context.progress(`memory: ${formatCount(done + block)} of ${formatCount(requests)} requests`);
  }
  return {
    requests,
    requestsPerSecond: throughput(requests, elapsedMs),
    rssBytes: (await emulator.rssBytes()) ?? Number.NaN,
    peakRssBytes: (await emulator.peakRssBytes()) ?? Number.NaN,
  };
}
