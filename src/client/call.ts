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
 * everything. The deadline is one timer per call that settles the call at once, abandoning what it
 * waited for: no `AbortSignal` goes to `fetch` unless the caller passed one, since undici's
 * handling of a signal costs more than the rest of a call. A request abandoned at the deadline
 * has its body cancelled once its headers arrive.
 */

import { loadProvider } from "../providers/catalog.ts";
import type { ChatRequest, ProviderAdapter } from "../providers/types.ts";
import type { PolicyDecision } from "../routes/policy.ts";
import { universalStep } from "../routes/universal.ts";
import { readAnswer } from "./answer.ts";
import type { Call, CallContext, Failure, Streamer, Trial } from "./call-context.ts";
import { AbortedError, DeadlineExceededError, type GatewayError } from "./call-errors.ts";
import type { ClientState, PreparedRoute, RouteEntry } from "./client.ts";
import type { SteeredStep } from "./guards.ts";
import { failoverModule, policyModule, recordModule, settingsModule } from "./lazy-modules.ts";
import { callSafely } from "./recorder.ts";
import type { OutputRejection } from "./route-errors.ts";
import type { ChatOptions, ChatResponse, GatewayClientOptions } from "./types.ts";

/** Defaults of a call's deadline and attempts (`failover.ts` and the stream reader have theirs). */
export const clientDefaults = { deadlineMs: 120_000, maxAttempts: 3 } as const;

const noop = () => undefined;

/**
 * Call options a call uses as they are; any other option it sets (gateway settings such as
 * `cacheTtl`, overrides such as `maxAttempts`) is checked by `settings.ts`, loaded when a call
 * first sets one.
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

/** Loads a provider's adapter (the client started loading it when it was created). */
async function loadAdapter(call: GatewayCall, slug: string): Promise<ProviderAdapter> {
  const adapter = await loadProvider(slug);
  call.adapters.set(slug, adapter);
  return adapter;
}

/** Ends the call at its deadline (a module function, so arming it allocates no closure). */
function expire(call: GatewayCall): void {
  call.halt(new DeadlineExceededError({ deadlineMs: call.deadlineMs, attempts: call.attempts }));
}

/**
 * One call, as an object whose methods live on its prototype: a call allocates the object and
 * what it sends and reads, not a closure per step of its work. `run()` settles at once when the
 * call is halted (deadline, abort): what it was waiting for is abandoned, and the work in flight
 * stops at its next step.
 */
export class GatewayCall implements CallContext, Call {
  declare readonly client: GatewayClientOptions;
  declare route: PreparedRoute;
  declare metadata?: ChatOptions["metadata"];
  declare decision?: PolicyDecision | undefined;
  declare readonly adapters: Map<string, ProviderAdapter>;
  declare attemptTimeout?: AbortController;
  declare readonly policy: string;
  declare readonly maxAttempts: number;
  declare readonly deadlineMs: number;
  readonly trials: Trial[] = [];
  readonly rejections: OutputRejection[] = [];
  declare excluded?: Set<number>;
  declare retryAfter?: Map<number, number>;
  attempts = 0;
  waits = 0;
  declare readonly id: string;
  declare readonly startedAt: number;
  declare readonly mode: string;
  /** Circuit probes this call holds (only with a breaker). */
  declare private readonly probes: Map<string, number> | undefined;
  declare private request: ChatRequest;
  declare private headers: Record<string, string>;
  status = 0;
  cacheStatus: "HIT" | "MISS" | null = null;
  logId: string | null = null;
  declare lastEntry: RouteEntry | undefined;
  declare steered?: SteeredStep[];
  declare hedges?: unknown[];
  declare private halted: GatewayError | undefined;
  declare private deadline: ReturnType<typeof setTimeout> | undefined;
  /** The timer of the wait or attempt timeout in progress, cleared when the call ends. */
  declare timer: ReturnType<typeof setTimeout> | undefined;
  /** Settles `run()`'s promise: with the answer, or else with the error. */
  declare private settle: ((answer: ChatResponse | undefined, error: unknown) => void) | undefined;
  private ended = false;
  private onAbort: (() => void) | undefined;

  declare readonly streamer: Streamer | undefined;

  constructor(
    private readonly state: ClientState,
    readonly options: ChatOptions,
    streamer?: Streamer,
  ) {
    const client = state.options;
    this.streamer = streamer;
    this.client = client;
    this.adapters = state.adapters;
    this.route = state.routes.get(options.route)!;
    this.id = options.eventId ?? client.generateId?.() ?? crypto.randomUUID();
    this.startedAt = this.now();
    this.mode = options.mode ?? client.mode ?? "universal";
    this.deadlineMs =
      options.deadlineMs ??
      this.route?.deadlineMs ??
      client.deadlineMs ??
      clientDefaults.deadlineMs;
    this.policy =
      options.onStreamBreak ?? this.route?.onStreamBreak ?? client.onStreamBreak ?? "restart";
    this.maxAttempts = options.maxAttempts ?? client.maxAttempts ?? clientDefaults.maxAttempts;
    if (client.breaker) this.probes = new Map();
  }

  now(): number {
    return this.client.now?.() ?? Date.now();
  }

  /**
   * Notes a step's failure for the event, and tells the breaker what the step did when that says
   * something about its health (never for a cached answer, nor once the call is over).
   */
  observe(entry: RouteEntry, ok: boolean, failure?: Omit<Trial, "entry">, health = true): void {
    if (failure !== undefined) this.trials.push({ entry, ...failure });
    if (health && this.cacheStatus !== "HIT" && !this.ended) {
      this.client.breaker?.record(entry, ok, this.probes!);
    }
  }

  passedOver(order: readonly RouteEntry[], position: number): void {
    for (let index = 0; index < position; index++) {
      this.observe(order[index]!, false, { status: null, error: null, at: "request" });
    }
  }

  /** Throws the error that halted the call, if it was halted. */
  check(): void {
    if (this.halted !== undefined) throw this.halted;
  }

  halt(error: GatewayError): void {
    if (this.halted !== undefined) return;
    this.halted = error;
    this.streamer?.cancel();
    // Before `run()`, the call ends as soon as it starts.
    if (this.settle) this.end(undefined, error);
  }

  run(): Promise<ChatResponse> {
    return new Promise<ChatResponse>((resolve, reject) => {
      this.settle = (answer, error) => (answer ? resolve(answer) : reject(error));
      this.attemptAll().then(
        (answer) => this.end(answer, null),
        (error: unknown) => this.end(undefined, error),
      );
    });
  }

  /**
   * Ends the call, once: lets go of its timers, listener and probes, records its one event (built
   * by `record.ts`, loaded when the client has a recorder), then settles `run()`.
   */
  private end(answer: ChatResponse | undefined, error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const { client } = this;
    clearTimeout(this.deadline);
    clearTimeout(this.timer);
    if (this.onAbort) this.options.signal?.removeEventListener("abort", this.onAbort);
    if (this.probes) client.breaker?.release(this.probes);
    if (client.recorder && !recordModule.loaded) {
      // The client started loading it when it was created; a call that ends first waits for it.
      const record = () => this.record(answer, error);
      recordModule.load().then(record, record);
    } else {
      this.record(answer, error);
    }
  }

  /** Records the call's event (unless `record.ts` could not be loaded) and settles `run()`. */
  private record(answer: ChatResponse | undefined, error: unknown): void {
    const { recorder, onRecorderError } = this.client;
    const module = recordModule.loaded;
    // Building the event is inside too: whatever fails there goes to `onRecorderError`, and the
    // call still settles.
    if (recorder && module) {
      callSafely(() => recorder.record(module.callEvent(this, answer, error)), onRecorderError);
    }
    this.settle!(answer, error);
  }

  /** Checks the call's options, then tries the route until an answer or the end of the call. */
  private async attemptAll(): Promise<ChatResponse> {
    const { options, client } = this;
    const { messages, signal, validate } = options;
    const messagesValid =
      messages?.length > 0 &&
      messages.every(
        (m) => /^(system|user|assistant)$/.test(m?.role) && typeof m.content === "string",
      );
    // An unknown route or bad messages load the checks' wording: only a wrong call needs it.
    if (this.route === undefined || !messagesValid) {
      (await settingsModule.load()).checkCall(this.state, options, messagesValid);
    }
    const route = this.route;
    // A route's policy picks the chain of a universal call; a scorer adds metadata.
    this.metadata = options.metadata;
    if (route.config.policy !== undefined || client.scorer) {
      (policyModule.loaded ?? (await policyModule.load())).planCall(this.state, this);
    }
    const settingsOptions =
      this.metadata === options.metadata ? options : { ...options, metadata: this.metadata };
    // Object.assign, not spread: spreading a header object costs over 1 µs on Node 20.
    const headers: Record<string, string> = Object.assign({}, this.state.headers);
    headers["cf-aig-event-id"] = this.id;
    headers["cf-aig-metadata"] = route.metadata;
    this.headers = headers;
    // Gateway settings (cache, metadata, retries...) and overrides load their checks when set.
    if (setsCheckedOption(settingsOptions)) {
      const settings = settingsModule.loaded ?? (await settingsModule.load());
      Object.assign(headers, settings.settingHeaders(settingsOptions, route.name));
    }
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
    this.check();
    // The deadline counts from the call's start: loading the settings' checks may have taken a while.
    this.deadline = setTimeout(expire, this.deadlineMs - (this.now() - this.startedAt), this);
    let steps = this.route.steps;
    let dynamic = this.mode === "dynamic";
    for (;;) {
      this.check();
      let order = dynamic
        ? this.route.steps
        : (client.breaker?.order(steps, this.probes!) ?? steps);
      // The client's health and limits (when it has them) demote and skip universal steps.
      order = client.health?.order(order, this) ?? order;
      order = client.limits?.order(order, this) ?? order;
      this.attempts++;
      let outcome = await this.attempt(order, dynamic);
      this.check();
      if ("served" in outcome) {
        const entry = this.route.steps[outcome.served.index ?? -1];
        // The caller's validator, when there is one: a rejection moves on like a failure.
        const verdict = validate === undefined || (await validate(outcome));
        this.check();
        if (verdict === true) {
          if (entry !== undefined) this.observe(entry, true);
          if (this.decision !== undefined) {
            policyModule.loaded!.chargeCall(this.state, this.decision, outcome.cost, this.now());
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
        };
      }
      const failover = failoverModule.loaded ?? (await failoverModule.load());
      const next = await failover.recover(this, outcome, order);
      steps = next.steps;
      dynamic &&= !next.after;
    }
  }

  /** Sends one attempt and reads its answer. */
  private async attempt(
    order: readonly RouteEntry[],
    dynamic: boolean,
  ): Promise<ChatResponse | Failure> {
    const { adapters, client, streamer, request } = this;
    const url = dynamic
      ? `${this.state.gatewayUrl}/compat/chat/completions`
      : this.state.gatewayUrl;
    let body: unknown;
    if (dynamic) {
      const compat = adapters.get("compat") ?? (await loadAdapter(this, "compat"));
      body = compat.requestBody(`dynamic/${this.options.route}`, request);
    } else {
      const steps = [];
      for (const entry of order) {
        // Each provider's adapter loads with its format's code on first use.
        const adapter = adapters.get(entry.provider) ?? (await loadAdapter(this, entry.provider));
        const sent = streamer
          ? streamer.request(entry, adapter, request, this.policy === "continue")
          : request;
        steps.push(universalStep(adapter, entry, sent, client));
      }
      body = steps;
    }
    // An attempt timeout aborts the attempt's request (headers, and a plain answer's body).
    const signal =
      client.attemptTimeoutMs === undefined
        ? this.options.signal
        : (failoverModule.loaded ?? (await failoverModule.load())).attemptSignal(this);
    const init = { method: "POST", headers: this.headers, body: JSON.stringify(body), signal };
    // A hedged route's universal attempt may also go to the steps after the first (`hedge/hedge.ts`).
    const sent = this.route.config.hedge
      ? (await failoverModule.load()).hedged(this, url, init, order)
      : (client.fetch ?? fetch)(url, init);
    let response: Response | undefined;
    try {
      response = await sent;
      this.check();
      // A stream's attempt timeout ends with its headers; its first-token and idle timeouts follow.
      if (streamer !== undefined) clearTimeout(this.timer);
      return await readAnswer(this, response, order, dynamic, url);
    } catch (cause) {
      if (response === undefined) {
        sent.then((late) => late.body?.cancel().catch(noop), noop);
        this.status = 0;
        this.cacheStatus = this.logId = null;
      } else {
        response.body?.cancel().catch(noop);
      }
      this.check();
      return { url, status: 0, kind: "transport", cause };
    } finally {
      clearTimeout(this.timer);
    }
  }
}

/** Creates one call: see the module description. `streamer` makes it a streamed call. */
export function createCall(state: ClientState, options: ChatOptions, streamer?: Streamer): Call {
  return new GatewayCall(state, options, streamer);
}
