/**
 * @module
 * Interleaved blocks of calls (see `load.ts`) that also add up each side's process CPU time: for
 * benchmarks that stub the network out and measure what the code itself costs.
 */
import { type Call, type LoadResult, runInterleaved } from "./load.ts";

/** Runs interleaved blocks, adding up each side's process CPU time. */
export async function interleavedWithCpu<Name extends string>(
  sides: Record<Name, Call>,
  options: { count: number; blocks: number; warmup: number; progress: (text: string) => void },
): Promise<{ sides: Record<Name, LoadResult>; cpuUs: Record<Name, number> }> {
  const cpu = {} as Record<Name, number>;
  let started = process.cpuUsage();
  const result = await runInterleaved(sides, {
    ...options,
    beforeBlock: () => {
      started = process.cpuUsage();
    },
    onBlock: (done, total, name) => {
      const used = process.cpuUsage(started);
      cpu[name as Name] = (cpu[name as Name] ?? 0) + used.user + used.system;
      options.progress(`block ${done}/${total}`);
    },
  });
  const cpuUs = {} as Record<Name, number>;
  for (const name of Object.keys(sides) as Name[]) {
    cpuUs[name] = cpu[name] / Math.max(1, result.sides[name].latencies.length);
  }
  return { sides: result.sides, cpuUs };
}
