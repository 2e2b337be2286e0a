/**
 * @module
 * Benchmark 3: what a call costs while the primary provider is down (it hangs until the step's
 * timeout, or answers 503), through the emulator: the client with its breaker (once the circuit
 * is open it sends the fallback first), the client without a breaker (every call waits for the
 * primary), and Portkey's fallback; each against calling the fallback directly through the same
 * path (a route of only the secondary).
 */
import { type CircuitBreaker, createCircuitBreaker } from "../../src/client/breaker.ts";
import {
  callbackRecorder,
  createGatewayClient,
  type GatewayClient,
} from "../../src/client/index.ts";
import type { FaultKind } from "../../src/emulator/mocks/index.ts";
import { accountId, benchKey, gatewayId, messages, primary, secondary } from "./fixtures.ts";
import { portkeyCall, portkeyTargets } from "./gateway-calls.ts";
import { resetMocks, startEmulatorChild, startMocks, startPortkeyChild } from "./lab.ts";
import { type Call, type LoadResult, runInterleaved } from "./load.ts";
import { markdownTable } from "./markdown.ts";
import { noiseParts, noiseStatement, partsOfRounds } from "./noise.ts";
import { formatDeltaMs, formatMs, formatRatio, ratio, summarize } from "./stats.ts";
import type { BenchContext, Benchmark, BenchResult, TargetCheck } from "./types.ts";

/** The primary step's time to first byte (`timeoutMs`, Portkey's `request_timeout`). */
const stepTimeoutMs = 250;
const targetRatio = 1.1;

const faults: readonly { kind: FaultKind; name: string }[] = [
  { kind: "no-response", name: `primary hangs (step timeout ${stepTimeoutMs} ms)` },
  { kind: "unavailable", name: "primary answers 503" },
];

function clientFor(baseUrl: string, breaker?: CircuitBreaker): GatewayClient {
  return createGatewayClient({
    accountId,
    gatewayId,
    baseUrl,
    routes: { default: [{ ...primary, timeoutMs: stepTimeoutMs }, secondary], direct: [secondary] },
    keyLookup: benchKey,
    recorder: callbackRecorder(() => undefined),
    breaker,
  });
}

function clientCall(client: GatewayClient, route: string): Call {
  return async () => {
    const answer = await client.chat({ route, messages });
    if (answer.served.provider !== secondary.provider) {
      throw new Error(`served by ${answer.served.provider}, not the fallback`);
    }
  };
}

interface FaultResult {
  readonly kind: FaultKind;
  readonly name: string;
  readonly opening: { calls: number; latencies: number[] };
  readonly stayedOpen: boolean;
  readonly sides: Record<
    "direct" | "breakerOpen" | "noBreaker" | "portkeyDirect" | "portkeyFallback",
    LoadResult
  >;
  /** The fast paths' rounds (the circuit-open target's sides), for the noise. */
  readonly rounds: Record<string, LoadResult>[];
}

async function run(context: BenchContext): Promise<BenchResult> {
  const mocks = await startMocks(context.cleanup);
  context.progress("starting the emulator and Portkey");
  const [emulator, portkey] = await Promise.all([
    startEmulatorChild(context.cleanup, mocks),
    startPortkeyChild(context.cleanup),
  ]);
  const results: FaultResult[] = [];
  for (const fault of faults) {
    resetMocks(mocks);
    mocks.setFaults({ rules: [{ provider: primary.provider, kind: fault.kind }] });
    // A cooldown longer than the measurement, so every measured call sees the open circuit.
    const breaker = createCircuitBreaker({ cooldownMs: 120_000, maxCooldownMs: 120_000 });
    const primaryState = () => breaker.state(primary.provider, primary.model);
    const withBreaker = clientFor(emulator.url, breaker);
    const withoutBreaker = clientFor(emulator.url);
    // Open the circuit: the default breaker opens after 5 consecutive failures.
    const opening = { calls: 0, latencies: [] as number[] };
    while (primaryState() !== "open" && opening.calls < 20) {
      const started = performance.now();
      await clientCall(withBreaker, "default")(0);
      opening.latencies.push(performance.now() - started);
      opening.calls++;
    }
    if (primaryState() !== "open") {
      throw new Error(`the breaker did not open after ${opening.calls} calls (${fault.name})`);
    }
    context.progress(`${fault.name}: breaker open after ${opening.calls} calls`);
    const hangs = fault.kind === "no-response";
    const failingPaths = {
      noBreaker: clientCall(withoutBreaker, "default"),
      portkeyFallback: portkeyCall(portkey.url, portkeyTargets(mocks, stepTimeoutMs), 1),
    };
    // Paths that wait for a hanging primary take the step timeout per call, so they run apart,
    // with fewer calls; a 503 costs little, so then every path runs in the same interleaving.
    const fastPaths: Record<string, Call> = {
      direct: clientCall(withBreaker, "direct"),
      breakerOpen: clientCall(withBreaker, "default"),
      portkeyDirect: portkeyCall(portkey.url, portkeyTargets(mocks).slice(1), 0),
      ...(hangs ? {} : failingPaths),
    };
    const fast = await runInterleaved(fastPaths, {
      count: context.quick ? 200 : 1_000,
      // Blocks of 20 calls, so drift on a shared machine lands on every path alike.
      blocks: context.quick ? 10 : 50,
      warmup: 50,
      onBlock: (done, total) => context.progress(`${fault.name}: block ${done}/${total}`),
    });
    // The default cooldown is 30 s; the circuit must still be open after its calls.
    const stayedOpen = primaryState() === "open";
    const slow = hangs
      ? await runInterleaved(failingPaths, {
          count: context.quick ? 4 : 24,
          blocks: 2,
          warmup: 1,
          onBlock: (done, total) =>
            context.progress(`${fault.name}: waiting block ${done}/${total}`),
        })
      : { sides: {} };
    const sides = { ...fast.sides, ...slow.sides } as FaultResult["sides"];
    results.push({
      kind: fault.kind,
      name: fault.name,
      opening,
      stayedOpen,
      sides,
      rounds: fast.rounds,
    });
  }
  resetMocks(mocks);
  return describe(results);
}

function describe(results: readonly FaultResult[]): BenchResult {
  const rows: string[][] = [];
  const targets: TargetCheck[] = [];
  for (const result of results) {
    const median = (load: LoadResult) => summarize(load.latencies).median;
    const { sides } = result;
    const line = (path: string, load: LoadResult, baseline: LoadResult, note = "") => {
      const summary = summarize(load.latencies);
      rows.push([
        result.name,
        path,
        String(summary.count),
        String(load.failures),
        formatMs(summary.median),
        formatMs(summary.p99),
        load === baseline ? "—" : formatDeltaMs(summary.median - median(baseline)),
        load === baseline ? "—" : formatRatio(ratio(summary.median, median(baseline))) + note,
      ]);
    };
    line("client → fallback directly (route of the secondary only)", sides.direct, sides.direct);
    line("client with breaker, circuit open", sides.breakerOpen, sides.direct);
    line("client without breaker", sides.noBreaker, sides.direct);
    line("Portkey → fallback directly (one target)", sides.portkeyDirect, sides.portkeyDirect);
    line("Portkey fallback", sides.portkeyFallback, sides.portkeyDirect);
    const openRatio = ratio(median(sides.breakerOpen), median(sides.direct));
    targets.push({
      name: result.kind === "no-response" ? "primary hangs" : "primary answers 503",
      goal: `≤ ${targetRatio.toFixed(2)}× the fallback called directly`,
      measured: formatRatio(openRatio),
      met: openRatio <= targetRatio && result.stayedOpen,
    });
  }
  const opening = results
    .map(
      (result) =>
        `${result.name}: the circuit opened after ${result.opening.calls} calls (median ${formatMs(summarize(result.opening.latencies).median)} each)${result.stayedOpen ? "" : " and **closed again during the measurement**"}`,
    )
    .join("; ");
  const table = markdownTable(
    ["primary", "path", "calls", "errors", "median", "p99", "added (median)", "ratio"],
    rows,
    ["left", "left", "right", "right", "right", "right", "right", "right"],
  );
  const body = [
    `Sequential calls through the emulator (its own process) in front of mock providers, route Groq (primary, \`timeoutMs: ${stepTimeoutMs}\`) → OpenAI (fallback), while the Groq mock hangs without answering, or answers 503. The client's breaker has its defaults (opens after 5 consecutive failures; open providers go to the end of the chain) except for a 120 s cooldown, longer than the measurement, so that no probe falls inside it. Portkey gets the same two targets with \`request_timeout: ${stepTimeoutMs}\` on the primary. "Added" is the median over the same path's direct call to the fallback. Every call is checked to be served by the fallback.`,
    "",
    table,
    "",
    `${opening}. Those opening calls pay the full failover; after each cooldown (30 s by default) one probe call pays it again (it tries the primary first), so a long outage costs one slow call per cooldown on top of the figures above. With the circuit open the chain still carries the primary as its last step (\`whenOpen: "move-to-end"\`, the default), a slightly larger request than the direct route's; \`whenOpen: "drop"\` leaves it out.`,
    "",
    targets
      .map(
        (target) =>
          `**Target, ${target.name}: with the circuit open, a call costs ${target.goal}**: ${target.met ? "met" : "missed"}, ${target.measured}.`,
      )
      .join("  \n"),
  ].join("\n");
  const worst = Math.max(
    ...results.map((result) =>
      ratio(median(result.sides.breakerOpen), median(result.sides.direct)),
    ),
  );
  return {
    body,
    headline: `circuit open: a call costs at most ${formatRatio(worst)} calling the fallback directly; without a breaker a hanging primary costs ${formatMs(median(results[0]!.sides.noBreaker))} per call`,
    targets,
    noise: noiseStatement(
      `about ${Math.round(results[0]!.sides.direct.latencies.length / noiseParts)} calls per path`,
      results.map((result) => ({
        figure: `circuit open over the fallback directly (${result.name})`,
        values: partsOfRounds(result.rounds).map((part) =>
          ratio(median(part.breakerOpen!), median(part.direct!)),
        ),
        format: formatRatio,
      })),
    ),
  };
}

function median(load: LoadResult): number {
  return summarize(load.latencies).median;
}

export const failoverCost: Benchmark = {
  id: "failover-cost",
  heading: "Failover cost during an outage",
  run,
};
