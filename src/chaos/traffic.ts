/**
 * @module
 * Sends the campaign's calls through the thin client, as fast as a fixed number in flight
 * allows. Each call has its own id (so events can be matched to calls), a unique question (so no
 * cache answers it), and its own deadline (a seeded share of calls gets a tight one, so some
 * calls really run into their deadline); it is plain (`client.chat`) or streamed
 * (`client.stream`, read to the end) by another seeded draw. Actions (key rotations) start when the
 * call with their index is sent and run alongside the traffic.
 */
import type { GatewayClient } from "../client/index.ts";
import { createSeededRandom } from "../emulator/mocks/index.ts";

/** How one call ended, seen from the caller. */
export interface CallOutcome {
  readonly id: string;
  readonly index: number;
  readonly stream: boolean;
  readonly ok: boolean;
  /** Wall time from the call to its answer read to the end, or to its error. */
  readonly wallMs: number;
  readonly deadlineMs: number;
  /** The answer's text, or the error's name and message. */
  readonly text: string;
}

/** Something to start when the call with index `at` is sent. */
export interface TrafficAction {
  readonly at: number;
  readonly run: () => Promise<void>;
}

export interface TrafficOptions {
  readonly client: GatewayClient;
  readonly route: string;
  readonly calls: number;
  readonly concurrency: number;
  readonly seed: number;
  readonly streamShare: number;
  readonly deadlineMs: number;
  /** A share of calls whose deadline is `ms` instead. */
  readonly tightDeadline?: { readonly share: number; readonly ms: number };
  /** Event ids are `${idPrefix}${index}`. */
  readonly idPrefix: string;
  readonly actions?: readonly TrafficAction[];
  readonly onOutcome?: (outcome: CallOutcome) => void;
  readonly now?: () => number;
  /** Stops sending new calls once aborted; calls in flight end by their deadline. */
  readonly signal?: AbortSignal;
}

/** Whether each call streams: the same seed gives the same choice for every call. */
export function streamChoices(seed: number, calls: number, share: number): boolean[] {
  const random = createSeededRandom(seed ^ 0x5eed);
  return Array.from({ length: calls }, () => random() < share);
}

/** Each call's deadline: `tight.ms` for a seeded share of calls, `deadlineMs` for the rest. */
export function deadlineChoices(
  seed: number,
  calls: number,
  deadlineMs: number,
  tight: { readonly share: number; readonly ms: number } | undefined,
): number[] {
  const random = createSeededRandom(seed ^ 0xdead);
  return Array.from({ length: calls }, () =>
    tight !== undefined && random() < tight.share ? tight.ms : deadlineMs,
  );
}

/** Sends every call; resolves once every call and action has finished. */
export async function runCalls(options: TrafficOptions): Promise<void> {
  const now = options.now ?? (() => performance.now());
  const streams = streamChoices(options.seed, options.calls, options.streamShare);
  const deadlines = deadlineChoices(
    options.seed,
    options.calls,
    options.deadlineMs,
    options.tightDeadline,
  );
  const pending = [...(options.actions ?? [])].sort((a, b) => a.at - b.at);
  const actions: Promise<void>[] = [];
  const inFlight = new Set<Promise<void>>();
  for (let index = 0; index < options.calls; index++) {
    if (options.signal?.aborted) break;
    while (pending.length > 0 && pending[0]!.at <= index) {
      actions.push(
        pending
          .shift()!
          .run()
          .catch(() => undefined),
      );
    }
    while (inFlight.size >= options.concurrency) await Promise.race(inFlight);
    const deadlineMs = deadlines[index] ?? options.deadlineMs;
    const call = sendOne(options, index, streams[index] ?? false, deadlineMs, now).then(
      (outcome) => {
        inFlight.delete(call);
        options.onOutcome?.(outcome);
      },
    );
    inFlight.add(call);
  }
  if (!options.signal?.aborted) {
    for (const action of pending) actions.push(action.run().catch(() => undefined));
  }
  await Promise.all(inFlight);
  await Promise.all(actions);
}

async function sendOne(
  options: TrafficOptions,
  index: number,
  stream: boolean,
  deadlineMs: number,
  now: () => number,
): Promise<CallOutcome> {
  const id = `${options.idPrefix}${index}`;
  const call = {
    route: options.route,
    messages: [
      { role: "user" as const, content: `Chaos call ${index}: summarise ticket #${index}.` },
    ],
    maxTokens: 32,
    deadlineMs,
    eventId: id,
  };
  const started = now();
  const base = { id, index, stream, deadlineMs };
  try {
    const answer = stream
      ? await options.client.stream(call).collect()
      : await options.client.chat(call);
    return { ...base, ok: true, wallMs: now() - started, text: answer.text };
  } catch (error) {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { ...base, ok: false, wallMs: now() - started, text };
  }
}
