/**
 * @module
 * One call of `client.chat` or `client.stream`, from its options to its one recorded event.
 *
 * The call checks its options (`settings.ts`, for a call that sets gateway settings or is wrong),
 * lets its route's policy pick the chain (`call-policy.ts`), then tries the route: each attempt
 * (`attempt.ts`) sends the remaining steps (ordered by the client's breaker, health and limits)
 * and returns the answer, or a failure that `failover.ts` judges: the steps after the failing
 * one, the route again after a backoff, or the end of the call with its error. An answer the
 * caller's validator refuses is a failure of its step like any other. Every part returns to this
 * one; none calls back. When the call ends, `call-event.ts` builds its one event for the recorder.
 *
 * Attempts are bounded by `maxAttempts`, waits and reads by the deadline; the caller's signal
 * stops everything. The deadline is one timer per call that ends the call at once, abandoning
 * what it waited for: no `AbortSignal` goes to `fetch` unless the caller passed one, since
 * undici's handling of a signal costs more than the rest of a call. The work in flight stops at
 * its next step (`CallState.halted`); a request abandoned at the deadline has its body cancelled
 * once its headers arrive.
 */

import type { ChatRequest } from "../providers/types.ts";
import { sendAttempt } from "./attempt.ts";
import { AbortedError, DeadlineExceededError, type GatewayError } from "./call-errors.ts";
import { callEvent, callSafely } from "./call-event.ts";
import { chargeCall, planCall } from "./call-policy.ts";
import type {
  CallState,
  ClientState,
  Failure,
  PreparedRoute,
  RouteEntry,
  Streamer,
  Trial,
} from "./call-state.ts";
import { recover } from "./failover.ts";
import { checkCall, settingHeaders } from "./settings.ts";
import type {
  ChatOptions,
  ChatResponse,
  GatewayClientOptions,
  StreamBreakPolicy,
} from "./types.ts";

/** Defaults of a call's deadline and attempts (`failover.ts` and the stream reader have theirs). */
export const clientDefaults = { deadlineMs: 120_000, maxAttempts: 3 } as const;

/**
 * Call options a call uses as they are; any other option it sets (gateway settings such as
 * `cacheTtl`, overrides such as `maxAttempts`) is checked by `settings.ts`.
 */
const plainOptions = new Set([
  "route",
  "messages",
  "signal",
  "validate",
  "maxTokens",
  "temperature",
  "topP",
  "stop",
]);

/** True when the call sets an option `settings.ts` checks (a call sets only a few options). */
function setsCheckedOption(options: ChatOptions): boolean {
  for (const name in options) {
    if (!plainOptions.has(name) && options[name as keyof ChatOptions] !== undefined) return true;
  }
  return false;
}

/** `Date.now`, looked up at each reading (fake timers replace it). */
const systemNow = () => Date.now();

/** Ends the call at its deadline (a module function, so arming it allocates no closure). */
function expire(call: GatewayCall): void {
  call.halt(new DeadlineExceededError({ deadlineMs: call.deadlineMs, attempts: call.attempts }));
}

/**
 * One call, as an object whose methods live on its prototype: a call allocates the object and
 * what it sends and reads, not a closure per step of its work. `run()` it once; `halt()` stops it
 * at once (the stream's `cancel`).
 */
export class GatewayCall implements CallState {
  declare readonly client: GatewayClientOptions;
  declare route: PreparedRoute;
  declare readonly adapters: CallState["adapters"];
  declare readonly policy: StreamBreakPolicy;
  declare readonly maxAttempts: number;
  declare readonly deadlineMs: number;
  declare readonly id: string;
  declare readonly startedAt: number;
  declare readonly mode: string;
  declare readonly now: () => number;
  declare readonly probes: Map<string, number> | undefined;
  declare readonly streamer: Streamer | undefined;
  declare request: ChatRequest;
  declare headers: Record<string, string>;
  attempts = 0;
  waits = 0;
  readonly trials: Trial[] = [];
  readonly rejections: CallState["rejections"] = [];
  declare excluded?: Set<number>;
  declare retryAfter?: Map<number, number>;
  status = 0;
  cacheStatus: "HIT" | "MISS" | null = null;
  logId: string | null = null;
  declare failedAttemptsCost?: number;
  declare lastEntry: RouteEntry | undefined;
  declare metadata?: ChatOptions["metadata"];
  declare decision?: CallState["decision"];
  declare steered?: CallState["steered"];
  declare hedges?: CallState["hedges"];
  declare timer: ReturnType<typeof setTimeout> | undefined;
  declare attemptTimeout?: AbortController;
  declare halted: GatewayError | undefined;
  ended = false;
  declare private deadline: ReturnType<typeof setTimeout> | undefined;
  /** Rejects `run()`'s race with the error that halted the call. */
  declare private stop: ((error: GatewayError) => void) | undefined;
  declare private onAbort: (() => void) | undefined;

  constructor(
    readonly state: ClientState,
    readonly options: ChatOptions,
    streamer?: Streamer,
  ) {
    const client = state.options;
    this.client = client;
    this.streamer = streamer;
    this.adapters = state.adapters;
    this.route = state.routes.get(options.route)!;
    this.now = client.now ?? systemNow;
    this.id = options.eventId ?? client.generateId?.() ?? crypto.randomUUID();
    this.startedAt = this.now();
    this.mode = state.rest ? "rest" : (options.mode ?? client.mode ?? "universal");
    this.deadlineMs =
      options.deadlineMs ??
      this.route?.deadlineMs ??
      client.deadlineMs ??
      clientDefaults.deadlineMs;
    this.policy =
      options.onStreamBreak ?? this.route?.onStreamBreak ?? client.onStreamBreak ?? "restart";
    this.maxAttempts = options.maxAttempts ?? client.maxAttempts ?? clientDefaults.maxAttempts;
    this.probes = client.breaker ? new Map() : undefined;
  }

  /**
   * Stops the call at once with `error` (its deadline, an abort, a cancelled stream): `run()`
   * rejects with it, and the work in flight stops at its next step.
   */
  halt(error: GatewayError): void {
    if (this.halted !== undefined) return;
    this.halted = error;
    this.streamer?.cancel();
    this.stop?.(error);
  }

  /** The call's answer, or the error that ended it; its one event is recorded either way. */
  async run(): Promise<ChatResponse> {
    let answer: ChatResponse | undefined;
    let failure: unknown;
    try {
      answer = await Promise.race([this.attemptAll(), this.stopped()]);
      return answer;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      this.end(answer, failure);
    }
  }

  /** A promise that rejects when the call is halted (at once if it was halted already). */
  private stopped(): Promise<never> {
    return new Promise<never>((_, reject) => {
      this.stop = reject;
      if (this.halted !== undefined) reject(this.halted);
    });
  }

  /** Lets go of the call's timers, listener and probes, then records its one event. */
  private end(answer: ChatResponse | undefined, error: unknown): void {
    this.ended = true;
    const { client } = this;
    clearTimeout(this.deadline);
    clearTimeout(this.timer);
    if (this.onAbort) this.options.signal?.removeEventListener("abort", this.onAbort);
    if (this.probes) client.breaker?.release(this.probes);
    const { recorder } = client;
    // Building the event is inside too: whatever fails there goes to `onRecorderError`.
    if (recorder) {
      callSafely(() => recorder.record(callEvent(this, answer, error)), client.onRecorderError);
    }
  }

  /** Checks the call's options, then tries the route until an answer or the end of the call. */
  private async attemptAll(): Promise<ChatResponse> {
    const { options, client, state } = this;
    const { messages, signal, validate } = options;
    const messagesValid =
      messages?.length > 0 &&
      messages.every(
        (m) => /^(system|user|assistant)$/.test(m?.role) && typeof m.content === "string",
      );
    if (this.route === undefined || !messagesValid) checkCall(state, options, messagesValid);
    // A route's policy picks the chain of a universal call; a scorer adds metadata.
    this.metadata = options.metadata;
    if (this.route.config.policy !== undefined || client.scorer) planCall(state, this);
    const route = this.route;
    const settingsOptions =
      this.metadata === options.metadata ? options : { ...options, metadata: this.metadata };
    // Object.assign, not spread: spreading a header object costs over 1 µs on Node 20.
    const headers: Record<string, string> = Object.assign({}, state.headers);
    headers["cf-aig-event-id"] = this.id;
    headers["cf-aig-metadata"] = route.metadata;
    // Gateway settings (cache, metadata, retries...) and overrides are checked when set.
    if (setsCheckedOption(settingsOptions)) {
      Object.assign(headers, settingHeaders(settingsOptions, route.name));
    }
    this.headers = headers;
    this.request = {
      messages,
      maxTokens: options.maxTokens,
      temperature: options.temperature,
      topP: options.topP,
      stop: options.stop,
      stream: this.streamer ? true : undefined,
    };
    if (signal) {
      this.onAbort = () => this.halt(new AbortedError({ cause: signal.reason }));
      if (signal.aborted) this.onAbort();
      else signal.addEventListener("abort", this.onAbort, { once: true });
    }
    // Halted already (an aborted signal, a stream cancelled before it started): no timer to arm.
    if (this.halted !== undefined) throw this.halted;
    this.deadline = setTimeout(expire, this.deadlineMs - (this.now() - this.startedAt), this);
    let steps = route.steps;
    // On the REST API a route of more than one step (or with a policy) is its dynamic route.
    let dynamic =
      this.mode === "dynamic" ||
      (state.rest !== undefined && (route.steps.length > 1 || route.config.policy !== undefined));
    for (;;) {
      if (this.halted !== undefined) throw this.halted;
      let order = dynamic
        ? this.route.steps
        : (client.breaker?.order(steps, this.probes!) ?? steps);
      // The client's health and limits (when it has them) demote and skip universal steps (they
      // leave a `dynamic` call's chain alone; a REST call's dynamic route skips them here).
      if (!dynamic || state.rest === undefined) {
        order = client.health?.order(order, this) ?? order;
        order = client.limits?.order(order, this) ?? order;
      }
      this.attempts++;
      let outcome: ChatResponse | Failure = await sendAttempt(this, order, dynamic);
      if (this.halted !== undefined) throw this.halted;
      if ("served" in outcome) {
        const entry = this.route.steps[outcome.served.index ?? -1];
        // The caller's validator, when there is one: a rejection moves on like a failure.
        const verdict = validate === undefined || (await validate(outcome));
        if (this.halted !== undefined) throw this.halted;
        if (verdict === true) {
          // The step answered; a cached answer says nothing about its health.
          if (entry !== undefined && this.cacheStatus !== "HIT") {
            client.breaker?.record(entry, true, this.probes!);
          }
          if (this.decision !== undefined) {
            chargeCall(state, this.decision, outcome.cost, this.now());
          }
          return outcome;
        }
        outcome = {
          entry,
          url: "",
          status: 200,
          kind: "rejected",
          detail: verdict || "rejected",
          midStream: !!this.streamer && outcome.text !== "",
          // Received whole, then refused: what it cost was spent all the same.
          cost: outcome.cost,
        };
      }
      if (outcome.cost != null) {
        this.failedAttemptsCost = (this.failedAttemptsCost ?? 0) + outcome.cost;
      }
      const next = await recover(this, outcome, order);
      steps = next.steps;
      dynamic &&= !next.after;
    }
  }
}
