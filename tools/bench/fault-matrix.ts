/**
 * @module
 * Benchmark 7: what the client makes of each fault kind, plain and streamed. One call per fault
 * kind and mode through the client and the emulator (in this process), with the fault on the
 * primary step's model (every attempt of it, so the gateway's retries cannot hide it). Each call
 * ends one of three ways:
 *
 * - `rescued`: a full answer (ending with the mock's `[end]` marker; for a stream, the text the
 *   caller was shown after its last `restart` equals the answer), from a later step, or from the
 *   primary when the fault only slowed it or does not apply to the mode;
 * - `clean error`: a Stepwise error the caller can act on, before the deadline (the right end for a
 *   content-policy refusal, which no other provider may be asked to get around);
 * - `wrong answer`: anything else: a success without the full text, text shown that is not the
 *   answer, another error, or a call still running past its deadline.
 *
 * Two more rows cover the `continue` policy: the next step continues the text shown (a prefill)
 * and, when it refuses the prefill, restarts instead without the caller seeing the refusal.
 * `test/client/fault-matrix.test.ts` runs the same cases and asserts each one's outcome.
 */
import { createGatewayClient, GatewayError } from "../../src/client/index.ts";
import { parseConfig } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import {
  answerEndMarker,
  type FaultKind,
  type FaultRule,
  faultKinds,
  gatewayKinds,
  streamOnlyKinds,
} from "../../src/emulator/mocks/index.ts";
import { markdownTable } from "./markdown.ts";
import type { BenchContext, Benchmark, BenchResult } from "./types.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const gatewayId = "fault-matrix";
const primary = { provider: "anthropic", model: "claude-sonnet-4-5" } as const;
const secondary = { provider: "openai", model: "gpt-4o-mini" } as const;
const tertiary = { provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct" } as const;

/**
 * Timeouts scaled down so the matrix runs in seconds, with margins wide enough that a busy
 * machine does not turn a healthy step into a timed-out one.
 */
export const matrixTimings = {
  /** The primary's time to first byte before the gateway moves on. */
  stepTimeoutMs: 1_000,
  /** `slow-first-byte`: late, but well under the step timeout. */
  slowMs: 50,
  /** The client's stream idle timeout. */
  idleTimeoutMs: 1_000,
  /** `stream-stall`: past the idle timeout, under the deadline (a plain body waits it out). */
  stallMs: 2_000,
  deadlineMs: 8_000,
} as const;

/** How one call ended. */
export type MatrixOutcome = "rescued" | "clean error" | "wrong answer";

export interface MatrixCase {
  /** The row's name: the fault kind, or a `continue` scenario. */
  readonly name: string;
  readonly stream: boolean;
  readonly route: "default" | "continue";
  readonly rules: readonly FaultRule[];
}

export interface MatrixResult extends MatrixCase {
  readonly outcome: MatrixOutcome;
  /** The route step that served, when one did. */
  readonly step: number | null;
  /** Providers the mocks saw a request for, in order, deduplicated. */
  readonly providersTried: readonly string[];
  /** `restart` deltas the caller got. */
  readonly restarts: number;
  /** Characters those deltas told the caller to drop. */
  readonly discardedChars: number;
  /** The answer's text, or the error's code and message. */
  readonly detail: string;
}

function ruleFor(kind: FaultKind): FaultRule {
  const rule: FaultRule = { ...primary, kind, count: Number.MAX_SAFE_INTEGER };
  if (kind === "slow-first-byte") return { ...rule, delayMs: matrixTimings.slowMs };
  if (kind === "stream-stall") return { ...rule, delayMs: matrixTimings.stallMs };
  // Down for the next hour: the whole matrix.
  if (kind === "down") return { ...rule, untilMs: Date.now() + 3_600_000 };
  return rule;
}

/**
 * One case per mock provider fault kind and mode, then the `continue` policy's two. The
 * `guardrail-*` kinds are the gateway's (its answer ends the request, no fallback), not a
 * provider's: test/emulator/features/guardrails.test.ts holds them.
 */
export function matrixCases(): MatrixCase[] {
  const cases: MatrixCase[] = [];
  for (const kind of faultKinds) {
    if (gatewayKinds.has(kind)) continue;
    for (const stream of [false, true]) {
      cases.push({ name: kind, stream, route: "default", rules: [ruleFor(kind)] });
    }
  }
  // The `continue` route puts OpenAI first: its stream is cut, and Anthropic (which accepts a
  // prefill) is asked to continue the text shown.
  const cut: FaultRule = { ...secondary, kind: "stream-cut", count: Number.MAX_SAFE_INTEGER };
  cases.push(
    { name: "stream-cut, continue policy", stream: true, route: "continue", rules: [cut] },
    {
      name: "stream-cut, continue policy, prefill-refused",
      stream: true,
      route: "continue",
      rules: [cut, { ...primary, kind: "prefill-refused", count: Number.MAX_SAFE_INTEGER }],
    },
  );
  return cases;
}

/** What each case should end as: the "done when", per kind and mode. */
export function expectedOutcome(testCase: MatrixCase): {
  readonly outcome: MatrixOutcome;
  /** The serving step; `later` for any step after the primary. */
  readonly step: number | "later" | null;
} {
  const kind = testCase.name as FaultKind;
  if (testCase.route === "continue") return { outcome: "rescued", step: 1 };
  if (kind === "content-filter") return { outcome: "clean error", step: null };
  const answeredByPrimary =
    kind === "slow-first-byte" ||
    kind === "prefill-refused" ||
    (!testCase.stream && (streamOnlyKinds.has(kind) || kind === "stream-stall")) ||
    // Complete answers: one bad event is skipped; a finish reason is the end, `[DONE]` optional.
    (testCase.stream && (kind === "malformed-chunk" || kind === "missing-done"));
  return { outcome: "rescued", step: answeredByPrimary ? 0 : "later" };
}

/** A running matrix: the emulator and a client for it. */
export interface FaultMatrix {
  run(testCase: MatrixCase): Promise<MatrixResult>;
  close(): Promise<void>;
}

/** Starts the emulator (mock providers included) and a client with the matrix's timings. */
export async function startFaultMatrix(): Promise<FaultMatrix> {
  const t = matrixTimings;
  const config = parseConfig({
    accountId,
    gateways: [
      {
        id: gatewayId,
        authentication: false,
        routes: {
          default: [{ ...primary, timeoutMs: t.stepTimeoutMs }, secondary, tertiary],
          continue: { steps: [secondary, primary, tertiary], onStreamBreak: "continue" },
        },
      },
    ],
    keys: { providers: [primary.provider, secondary.provider, tertiary.provider] },
  });
  const emulator: Emulator = await startEmulator({ config });
  const mocks = emulator.mocks!;
  const client = createGatewayClient({
    accountId,
    gatewayId,
    baseUrl: emulator.url,
    routes: config.gateways[0]!.routes,
    keyLookup: (provider) => `matrix-key-${provider}`,
    deadlineMs: t.deadlineMs,
    streamIdleTimeoutMs: t.idleTimeoutMs,
  });

  async function call(testCase: MatrixCase) {
    const options = { route: testCase.route, messages: [{ role: "user", content: "Hi" }] } as const;
    if (!testCase.stream) {
      return { answer: await client.chat(options), shown: null, restarts: 0, discardedChars: 0 };
    }
    const stream = client.stream(options);
    let shown = "";
    let restarts = 0;
    let discardedChars = 0;
    for await (const delta of stream) {
      if (delta.type === "restart") {
        restarts += 1;
        discardedChars += delta.discardedChars;
        shown = shown.slice(0, shown.length - delta.discardedChars);
      } else if (delta.type === "text") shown += delta.text;
    }
    return { answer: await stream.result, shown, restarts, discardedChars };
  }

  return {
    async run(testCase) {
      mocks.setFaults({ rules: [...testCase.rules] });
      mocks.clearAttempts();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const overran = new Promise<"overran">((resolve) => {
        // A call still running this long after its deadline hangs: a wrong answer.
        timer = setTimeout(() => resolve("overran"), t.deadlineMs + 2_000);
      });
      const ended = await Promise.race([
        call(testCase).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        ),
        overran,
      ]);
      clearTimeout(timer);
      const providersTried = [...new Set(mocks.attempts.map((attempt) => attempt.provider))];
      const base = { ...testCase, providersTried };
      if (ended === "overran") {
        return {
          ...base,
          outcome: "wrong answer",
          step: null,
          restarts: 0,
          discardedChars: 0,
          detail: "still running past its deadline",
        };
      }
      if ("error" in ended) {
        const error = ended.error;
        const clean = GatewayError.isInstance(error);
        return {
          ...base,
          outcome: clean ? "clean error" : "wrong answer",
          step: null,
          restarts: 0,
          discardedChars: 0,
          detail: clean ? `${error.code}: ${error.message}` : String(error),
        };
      }
      const { answer, shown, restarts, discardedChars } = ended.value;
      const whole =
        answer.text.endsWith(answerEndMarker) && (shown === null || shown === answer.text);
      return {
        ...base,
        outcome: whole ? "rescued" : "wrong answer",
        step: answer.served.index,
        restarts,
        discardedChars,
        detail: answer.text,
      };
    },
    close: () => emulator.close(),
  };
}

function cell(result: MatrixResult | undefined): string {
  if (result === undefined) return "—";
  if (result.outcome === "clean error") {
    const only = result.providersTried.length === 1 ? ", no other provider tried" : "";
    return `clean error (${result.detail.split(":")[0]}${only})`;
  }
  if (result.outcome === "wrong answer") return `**wrong answer**: ${result.detail.slice(0, 60)}`;
  const restart =
    result.restarts === 0
      ? ""
      : result.discardedChars <= 1
        ? ", continuing the text shown"
        : ", after a restart";
  return result.step === 0 ? "answered by step 0" : `rescued by step ${result.step}${restart}`;
}

async function run(context: BenchContext): Promise<BenchResult> {
  const matrix = context.cleanup.add(await startFaultMatrix(), (started) => started.close());
  const results: MatrixResult[] = [];
  const cases = matrixCases();
  for (const [index, testCase] of cases.entries()) {
    context.progress(
      `${index + 1}/${cases.length} ${testCase.name}${testCase.stream ? " (streamed)" : ""}`,
    );
    results.push(await matrix.run(testCase));
  }
  const names = [...new Set(cases.map((testCase) => testCase.name))];
  const rows = names.map((name) => [
    `\`${name}\``,
    cell(results.find((result) => result.name === name && !result.stream)),
    cell(results.find((result) => result.name === name && result.stream)),
  ]);
  const count = (outcome: MatrixOutcome, stream: boolean) =>
    results.filter((result) => result.outcome === outcome && result.stream === stream).length;
  const totals = (stream: boolean) =>
    `${count("rescued", stream)} rescued · ${count("clean error", stream)} clean error · ${count("wrong answer", stream)} wrong answer`;
  const unexpected = results.filter((result) => {
    const expected = expectedOutcome(result);
    return result.outcome !== expected.outcome;
  });
  const t = matrixTimings;
  const body = [
    `One call per fault kind and mode through the client and the emulator, the fault on every attempt of the primary (anthropic/claude-sonnet-4-5; then openai/gpt-4o-mini, workers-ai). Timings scaled down: primary step timeout ${t.stepTimeoutMs} ms, client stream idle timeout ${t.idleTimeoutMs} ms, stalls of ${t.stallMs} ms, slow first byte ${t.slowMs} ms, deadline ${t.deadlineMs} ms. *Rescued*: the full answer (ending in \`[end]\`; for a stream, the text shown after the last \`restart\` is the answer). *Clean error*: a Stepwise error before the deadline. *Wrong answer*: anything else, including a hang.`,
    "",
    markdownTable(["fault", "plain (`chat`)", "streamed (`stream`)"], rows, [
      "left",
      "left",
      "left",
    ]),
    "",
    `Plain: ${totals(false)}. Streamed: ${totals(true)}. A plain answer stalled mid-body is waited out (the gateway reads a plain body whole, with no timeout once bytes flow); \`content-filter\` ends the call with the provider's refusal and no other provider tried, by design.`,
  ].join("\n");
  return {
    body,
    headline: `plain ${totals(false)}; streamed ${totals(true)}`,
    targets: [
      {
        name: "every fault kind rescued or a clean error, plain and streamed",
        goal: "0 wrong answers, each kind as expected",
        measured: `${results.length - unexpected.length} of ${results.length} as expected`,
        met: unexpected.length === 0,
      },
    ],
    noise:
      "none in the verdicts: each fault is injected on every attempt of the primary and each outcome follows from the fault, not from timing (timeouts are ≥ 20× the mock's latency), so a second run gives the same table.",
  };
}

export const faultMatrix: Benchmark = {
  id: "fault-matrix",
  heading: "Fault kinds through the client",
  run,
};
