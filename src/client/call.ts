/**
 * @module
 * One call of `client.chat` or `client.stream`, from its options to its one recorded event.
 *
 * Each attempt sends the remaining steps (ordered by the breaker, when there is one) to the
 * universal endpoint, or the route's name to the compat endpoint (dynamic routes), and reads
 * which step served from `cf-aig-step` / `cf-aig-provider` / `cf-aig-model`. An answer that reads
 * whole (and that the validator accepts) ends the call. Anything else is a {@link Failure}, and
 * `failover.ts` (loaded with the first failure) says what comes next: the steps after the failing
 * one, the route again after a backoff, or the end of the call. A stream (read by a
 * {@link Streamer}) that breaks, stalls or sends an error after text reached the caller is a
 * failure of its step like any other; the next answer starts with a `restart` delta, or continues
 * the text shown (`onStreamBreak: "continue"`); with `fail` the call ends.
 *
 * Attempts are bounded by `maxAttempts`, waits and reads by the deadline; the caller's signal stops
 * everything. The deadline is a timer raced against each wait: no `AbortSignal` goes to `fetch`
 * unless the caller passed one, since undici's handling of a signal costs more than the rest of a
 * call. A request abandoned at the deadline has its body cancelled once its headers arrive.
 */

import { loadProvider } from "../providers/catalog.ts";
import { computeCost, withoutSnapshot } from "../providers/cost.ts";
import type { ChatRequest, FinishReason, ProviderAdapter, TokenUsage } from "../providers/types.ts";
import { resolveServedStep } from "../routes/served-step.ts";
import { universalStep } from "../routes/universal.ts";
import type { OutputRejection } from "./answer-errors.ts";
import {
  AbortedError,
  DeadlineExceededError,
  type GatewayError,
  throwProblems,
  UnknownRouteError,
  wholeNumberProblem,
} from "./call-errors.ts";
import { type ClientState, type PreparedRoute, policyProblem, type RouteEntry } from "./client.ts";
import type { FailedStep } from "./event.ts";
import { callSafely } from "./recorder.ts";
import type { ChatOptions, ChatResponse, GatewayClientOptions } from "./types.ts";

/** Defaults of a call's deadline and attempts (`failover.ts` and the stream reader have theirs). */
export const clientDefaults = { deadlineMs: 120_000, maxAttempts: 3 } as const;

/** A complete answer, as a {@link Streamer} read it. */
export interface StreamAnswer {
  readonly text: string;
  readonly usage: TokenUsage;
  readonly finish: FinishReason;
}

/**
 * What a streamed call adds to a chat call: the requests that continue a broken answer, reading
 * 2xx streams into deltas for the caller, and the text the caller was shown. Made by
 * `stream-reader.ts`, loaded with the first stream.
 */
export interface Streamer {
  /** Characters the caller was told to discard so far. */
  readonly discarded: number;
  /**
   * The request `entry` gets in the next attempt: with the text shown as an assistant prefill
   * when `continuing` a broken answer on a provider that accepts one, else `request` itself.
   */
  request(
    entry: RouteEntry,
    adapter: ProviderAdapter,
    request: ChatRequest,
    continuing: boolean,
  ): ChatRequest;
  /** True when `entry` was sent a prefill in the current attempt. */
  prefilled(entry: RouteEntry): boolean;
  /** `entry`'s model refused a prefill: it gets none from now on. */
  refusePrefill(entry: RouteEntry): void;
  /** Reads a 2xx stream: the answer, or the error that broke it and whether text reached the caller. */
  read(
    response: Response,
    adapter: ProviderAdapter,
    entry: RouteEntry | undefined,
    url: string,
    guard: <T>(promise: Promise<T>) => Promise<T>,
  ): Promise<StreamAnswer | { readonly error: GatewayError; readonly midStream: boolean }>;
  /** The answer shown broke at `step` for `reason`: the next answer starts with a restart. */
  broke(step: number, reason: string): void;
  /** Stops the read in progress (the call stopped). */
  cancel(): void;
}

/** A running call: `run` it once; `halt` stops it at once. */
export interface Call {
  run(): Promise<ChatResponse>;
  halt(error: GatewayError): void;
}

/** One step's failure, for the event and for `AllStepsFailedError`. */
export interface Trial {
  readonly entry: RouteEntry;
  readonly status: number | null;
  readonly error: GatewayError | null;
  readonly at: FailedStep["at"];
}

/**
 * An attempt that did not end the call with an answer, as `failover.ts` reads it. `entry` is the
 * step to blame, when one is.
 */
export type Failure = {
  readonly entry?: RouteEntry | undefined;
  readonly url: string;
  readonly status: number;
} & (
  | { readonly kind: "transport"; readonly cause: unknown; readonly timeoutMs?: number | undefined }
  | { readonly kind: "status"; readonly response: Response; readonly text: string }
  | {
      readonly kind: "unknown-step";
      readonly named: Readonly<Record<string, string | null>>;
      readonly sent: number;
    }
  | { readonly kind: "unreadable"; readonly detail: string; readonly cause: unknown }
  | { readonly kind: "broken"; readonly error: GatewayError; readonly midStream: boolean }
  | { readonly kind: "rejected"; readonly detail: string; readonly midStream: boolean }
);

/** What `failover.ts` needs of a call. */
export interface CallContext {
  readonly client: GatewayClientOptions;
  readonly route: PreparedRoute;
  readonly adapters: Map<string, ProviderAdapter>;
  readonly streamer: Streamer | undefined;
  readonly policy: string;
  readonly maxAttempts: number;
  readonly trials: Trial[];
  readonly rejections: OutputRejection[];
  /** Steps not to try again in this call: they refused the request, or their answer was rejected. */
  readonly excluded: Set<number>;
  attempts: number;
  /** Backoff waits so far. */
  waits: number;
  /** Notes a step's outcome (see `createCall`). */
  observe(entry: RouteEntry, ok: boolean, failure?: Omit<Trial, "entry">, health?: boolean): void;
  /** Notes that the steps before `position` failed (the gateway moved on from each). */
  passedOver(order: readonly RouteEntry[], position: number): void;
  remainingMs(): number;
  /** Waits `ms`, unless the call stops first. */
  wait(ms: number): Promise<void>;
}

const noop = () => undefined;

/** Call options that become `cf-aig-*` headers (see `settings.ts`). */
const settingNames = [
  "cacheTtl",
  "skipCache",
  "cacheKey",
  "metadata",
  "requestTimeoutMs",
  "retries",
  "collectLog",
  "eventId",
] as const;

/** Loads what a call does after a failure; `createGatewayClient` starts loading it early. */
export const loadFailover = () => import("./failover.ts");

/** Creates one call: see the module description. `streamer` makes it a streamed call. */
export function createCall(state: ClientState, options: ChatOptions, streamer?: Streamer): Call {
  const { adapters, gatewayUrl, routes } = state;
  const client = state.options;
  const { signal, validate } = options;
  const now = () => (client.now ?? Date.now)();
  const id = options.eventId ?? (client.generateId ?? (() => crypto.randomUUID()))();
  const startedAt = now();
  const mode = options.mode ?? client.mode ?? "universal";
  const route = routes.get(options.route)!;
  const deadlineMs =
    options.deadlineMs ?? route?.deadlineMs ?? client.deadlineMs ?? clientDefaults.deadlineMs;
  const breaker = client.breaker;
  /** Circuit probes this call holds. */
  const probes = new Map<string, number>();
  const timers: ReturnType<typeof setTimeout>[] = [];
  let request: ChatRequest;
  let headers: Record<string, string>;
  let status = 0;
  let cacheStatus: "HIT" | "MISS" | null = null;
  let logId: string | null = null;
  let lastEntry: RouteEntry | undefined;
  let halted: GatewayError | undefined;
  let stop: (error: GatewayError) => void = noop;
  /** Rejects with the error that ends the call at once: the deadline, or the caller's abort. */
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  stopped.catch(noop);
  /** Rejects when the current attempt runs past `attemptTimeoutMs`, when one is set. */
  let attemptStopped: Promise<never> | undefined;

  const halt = (error: GatewayError) => {
    if (halted !== undefined) return;
    halted = error;
    stop(error);
    streamer?.cancel();
  };
  const onAbort = () => halt(new AbortedError({ cause: signal?.reason }));

  /** Waits for `promise`, unless the call (or the attempt) stops first. */
  const guard = <T>(promise: Promise<T>): Promise<T> =>
    Promise.race(
      attemptStopped === undefined ? [promise, stopped] : [promise, stopped, attemptStopped],
    );

  const timer = (ms: number, run: () => void) => timers.push(setTimeout(run, ms));

  const call: CallContext = {
    client,
    route,
    adapters,
    streamer,
    policy: options.onStreamBreak ?? route?.onStreamBreak ?? client.onStreamBreak ?? "restart",
    maxAttempts: options.maxAttempts ?? client.maxAttempts ?? clientDefaults.maxAttempts,
    trials: [],
    rejections: [],
    excluded: new Set(),
    attempts: 0,
    waits: 0,
    /**
     * Notes a step's failure for the event, and tells the breaker what the step did when that
     * says something about its health (never for a cached answer).
     */
    observe(entry, ok, failure, health = true) {
      if (failure !== undefined) call.trials.push({ entry, ...failure });
      if (health && cacheStatus !== "HIT") breaker?.record(entry, ok, probes);
    },
    passedOver(order, position) {
      for (const entry of order.slice(0, Math.max(0, position))) {
        call.observe(entry, false, { status: null, error: null, at: "request" });
      }
    },
    remainingMs: () => deadlineMs - (now() - startedAt),
    async wait(ms) {
      try {
        await guard(
          client.sleep?.(ms, signal) ?? new Promise<void>((resolve) => timer(ms, resolve)),
        );
      } catch (cause) {
        throw halted ?? cause;
      }
    },
  };

  /** Reads an answer whose headers have arrived: the answer, or the failure. */
  const read = async (
    response: Response,
    order: readonly RouteEntry[],
    dynamic: boolean,
    url: string,
  ): Promise<ChatResponse | Failure> => {
    const answerHeaders = response.headers;
    const named = {
      step: answerHeaders.get("cf-aig-step"),
      provider: answerHeaders.get("cf-aig-provider"),
      model: answerHeaders.get("cf-aig-model"),
    };
    const cache = answerHeaders.get("cf-aig-cache-status")?.trim().toUpperCase();
    status = response.status;
    cacheStatus = cache === "HIT" || cache === "MISS" ? cache : null;
    logId = answerHeaders.get("cf-aig-log-id");
    let position = resolveServedStep({ steps: order as RouteEntry[] }, named)?.index ?? -1;
    // Without any served-step header a universal answer came from the first step, as Cloudflare's
    // own provider library assumes; an error without one is the last step's (every step failed).
    if (position < 0 && !named.step && !named.provider && !named.model) {
      position = !response.ok ? order.length - 1 : dynamic ? -1 : 0;
    }
    let entry = order[position];
    lastEntry = entry ?? lastEntry;
    const base = { entry, url, status };
    if (!response.ok) {
      return { ...base, kind: "status", response, text: await guard(response.text()) };
    }
    // The gateway moves on only after a failure: every step before the one that answered failed.
    call.passedOver(order, position);
    if (entry === undefined && !dynamic)
      return { ...base, kind: "unknown-step", named, sent: order.length };
    const adapter = adapters.get(dynamic ? "compat" : entry!.provider)!;
    let answer: StreamAnswer;
    let responseModel = entry?.model ?? "";
    if (streamer !== undefined) {
      const reading = await streamer.read(response, adapter, entry, url, guard);
      if (halted !== undefined) throw halted;
      if ("error" in reading) return { ...base, kind: "broken", ...reading };
      answer = reading;
    } else {
      const text = await guard(response.text());
      try {
        const parsed = adapter.parseResponse(text, entry?.model);
        answer = { text: parsed.text, usage: parsed.usage, finish: parsed.finishReason };
        responseModel = parsed.model;
      } catch (cause) {
        return { ...base, kind: "unreadable", detail: (cause as Error).message, cause };
      }
      // A dynamic route's answer without served-step headers: the step whose model the body names
      // (`gpt-4o-mini`, `openai/gpt-4o-mini` or a dated snapshot), when exactly one does.
      if (entry === undefined) {
        const matches = order.filter(
          ({ provider, model }) =>
            responseModel === `${provider}/${model}` || withoutSnapshot(responseModel) === model,
        );
        entry = matches.length === 1 ? matches[0] : undefined;
      }
    }
    const cached = cacheStatus === "HIT";
    const { usage } = answer;
    const prices = client.prices;
    const served: ChatResponse = {
      id,
      text: answer.text,
      usage,
      cost: cached
        ? 0
        : entry && prices
          ? (computeCost(prices, entry.provider, entry.model, usage) ??
            computeCost(prices, entry.provider, responseModel, usage) ??
            null)
          : null,
      finishReason: answer.finish,
      served: {
        index: entry?.index ?? null,
        provider: entry?.provider ?? null,
        model: entry?.model ?? null,
        responseModel,
        cached,
        logId,
        attempts: call.attempts,
        latencyMs: Math.max(0, now() - startedAt),
      },
    };
    return served;
  };

  /** Sends one attempt and reads its answer. */
  const attempt = async (
    order: readonly RouteEntry[],
    dynamic: boolean,
  ): Promise<ChatResponse | Failure> => {
    const url = dynamic ? `${gatewayUrl}/compat/chat/completions` : gatewayUrl;
    // Each provider's adapter loads with its format's code on first use.
    for (const slug of dynamic ? ["compat"] : order.map((entry) => entry.provider)) {
      if (!adapters.has(slug)) adapters.set(slug, await guard(loadProvider(slug)));
    }
    const body = dynamic
      ? adapters.get("compat")!.requestBody(`dynamic/${options.route}`, request)
      : order.map((entry) => {
          const adapter = adapters.get(entry.provider)!;
          return universalStep(
            adapter,
            entry,
            streamer?.request(entry, adapter, request, call.policy === "continue") ?? request,
            client,
          );
        });
    const timeoutMs = client.attemptTimeoutMs;
    let timedOut: number | undefined;
    if (timeoutMs !== undefined) {
      attemptStopped = new Promise<never>((_, reject) =>
        timer(timeoutMs, () => {
          timedOut = timeoutMs;
          reject(timedOut);
        }),
      );
      attemptStopped.catch(noop);
    }
    const sent = (client.fetch ?? fetch)(url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal,
    });
    let response: Response | undefined;
    try {
      response = await guard(sent);
      // A stream's attempt timeout ends with its headers; its first-token and idle timeouts follow.
      if (streamer !== undefined) attemptStopped = undefined;
      return await read(response, order, dynamic, url);
    } catch (cause) {
      if (response === undefined) {
        sent.then((late) => late.body?.cancel().catch(noop), noop);
        status = 0;
        cacheStatus = logId = null;
      } else {
        response.body?.cancel().catch(noop);
      }
      if (signal?.aborted) onAbort();
      if (halted !== undefined) throw halted;
      return { url, status: 0, kind: "transport", cause, timeoutMs: timedOut };
    } finally {
      attemptStopped = undefined;
    }
  };

  /** Records the call's one event (see `record.ts`, loaded when the client has a recorder). */
  const record = async (response: ChatResponse | undefined, error: unknown) => {
    const recorder = client.recorder;
    if (recorder === undefined) return;
    const { callEvent } = await import("./record.ts");
    const event = callEvent(call, {
      id,
      startedAt,
      latencyMs: Math.max(0, now() - startedAt),
      route: options.route,
      mode,
      response,
      error,
      status,
      cacheStatus,
      logId,
      lastEntry,
    });
    callSafely(() => recorder.record(event), client.onRecorderError);
  };

  return {
    halt,
    async run() {
      try {
        if (route === undefined) {
          throw new UnknownRouteError({
            route: String(options.route),
            knownRoutes: [...routes.keys()],
          });
        }
        const { messages } = options;
        const problems: string[] = [];
        if (
          !(
            messages?.length > 0 &&
            messages.every(
              (m) => /^(system|user|assistant)$/.test(m?.role) && typeof m.content === "string",
            )
          )
        ) {
          problems.push(
            "messages must be a non-empty array of { role: system, user or assistant, content: string }",
          );
        }
        wholeNumberProblem(problems, "maxAttempts", call.maxAttempts, 1);
        wholeNumberProblem(problems, "deadlineMs", deadlineMs, 1);
        if (!/^(universal|dynamic)$/.test(mode))
          problems.push(`mode must be "universal" or "dynamic", got "${mode}"`);
        policyProblem(problems, options.onStreamBreak);
        throwProblems("Invalid call options", problems);
        headers = {
          ...state.headers,
          "cf-aig-event-id": id,
          "cf-aig-metadata": JSON.stringify({ route: route.name }),
        };
        // Gateway settings (cache, metadata, retries...) load their checks only when a call sets one.
        if (settingNames.some((name) => options[name] !== undefined)) {
          Object.assign(
            headers,
            (await import("./settings.ts")).settingHeaders(options, route.name),
          );
        }
        const { maxTokens, temperature, topP, stop: stopSequences } = options;
        request = {
          messages,
          maxTokens,
          temperature,
          topP,
          stop: stopSequences,
          stream: !!streamer || undefined,
        };
        if (signal?.aborted) onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        timer(deadlineMs, () =>
          halt(new DeadlineExceededError({ deadlineMs, attempts: call.attempts })),
        );
        let steps = route.steps;
        let dynamic = mode === "dynamic";
        for (;;) {
          if (halted !== undefined) throw halted;
          const order = dynamic ? route.steps : (breaker?.order(steps, probes) ?? steps);
          call.attempts++;
          let outcome = await attempt(order, dynamic);
          if ("served" in outcome) {
            const entry = route.steps[outcome.served.index ?? -1];
            // The caller's validator, when there is one: a rejection moves on like a failure.
            const verdict =
              validate === undefined || (await guard(Promise.resolve(validate(outcome))));
            if (verdict === true) {
              if (entry !== undefined) call.observe(entry, true);
              await record(outcome, null);
              return outcome;
            }
            const midStream = !!streamer && outcome.text !== "";
            outcome = {
              entry,
              url: "",
              status: 200,
              kind: "rejected",
              detail: verdict || "rejected",
              midStream,
            };
          }
          const next = await (await guard(loadFailover())).recover(call, outcome, order);
          steps = next.steps;
          dynamic &&= !next.after;
        }
      } catch (error) {
        await record(undefined, error);
        throw error;
      } finally {
        for (const pending of timers) clearTimeout(pending);
        signal?.removeEventListener("abort", onAbort);
        breaker?.release(probes);
      }
    },
  };
}
