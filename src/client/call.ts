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
import type { ChatRequest, FinishReason, ProviderAdapter, TokenUsage } from "../providers/types.ts";
import type { PolicyDecision } from "../routes/policy.ts";
import { universalStep } from "../routes/universal.ts";
import type { OutputRejection } from "./answer-errors.ts";
import {
  AbortedError,
  DeadlineExceededError,
  type GatewayError,
  throwProblems,
  UnknownRouteError,
} from "./call-errors.ts";
import type { ClientState, PreparedRoute, RouteEntry } from "./client.ts";
import type { FailedStep } from "./event.ts";
import { callSafely } from "./recorder.ts";
import type { ChatOptions, ChatResponse, GatewayClientOptions, SteeredStep } from "./types.ts";

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
  /**
   * Steps not to try again in this call: they refused the request, or their answer was rejected
   * (made with the first one).
   */
  excluded?: Set<number>;
  /**
   * Steps that answered 429 with `Retry-After`: route index → the earliest time (epoch ms) to send
   * them again in this call (made with the first one).
   */
  retryAfter?: Map<number, number>;
  attempts: number;
  /** Backoff waits so far. */
  waits: number;
  /** Notes a step's outcome (see `createCall`). */
  observe(entry: RouteEntry, ok: boolean, failure?: Omit<Trial, "entry">, health?: boolean): void;
  /** Notes that the steps before `position` failed (the gateway moved on from each). */
  passedOver(order: readonly RouteEntry[], position: number): void;
  /** The timer of a wait in progress (cleared when the call ends). */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Throws the error that halted the call (deadline, abort), if it was halted. */
  check(): void;
  now(): number;
  readonly deadlineMs: number;
  // What the call's event says (`record.ts`):
  readonly options: ChatOptions;
  readonly id: string;
  readonly startedAt: number;
  readonly mode: string;
  /** The last answer's status, cache status and log id. */
  readonly status: number;
  readonly cacheStatus: "HIT" | "MISS" | null;
  readonly logId: string | null;
  /** The last step the call heard from, for a failed call's provider and model. */
  readonly lastEntry: RouteEntry | undefined;
  /** The metadata the call sent besides `route`, and its policy's decision (`call-policy.ts`). */
  readonly metadata?: ChatOptions["metadata"];
  readonly decision?: PolicyDecision | undefined;
  /** Steps the client's guards skipped or demoted (made with the first one). */
  readonly steered?: SteeredStep[];
  /** The hedges of the call's attempts (`hedge/hedge.ts`). */
  readonly hedges?: unknown[];
}

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

/**
 * A module loaded once, on first use; from then on `loaded` holds it, so a call takes it without
 * waiting (an `import()` of a loaded module still costs a trip through the module loader).
 */
export interface Lazy<T> {
  loaded?: T;
  load(): Promise<T>;
}

/** Wraps a dynamic import as a {@link Lazy} module. */
export function lazy<T>(importer: () => Promise<T>): Lazy<T> {
  let pending: Promise<T> | undefined;
  const module: Lazy<T> = {
    load: () => {
      pending ??= importer().then((loaded) => (module.loaded = loaded));
      return pending;
    },
  };
  return module;
}

/** What a call does after a failure; `createGatewayClient` starts loading it early. */
export const failoverModule = lazy(() => import("./failover.ts"));
/** Building the call's event, when the client has a recorder; loaded early too. */
export const recordModule = lazy(() => import("./record.ts"));
const settingsModule = lazy(() => import("./settings.ts"));
/** A route's policy and a scorer's metadata, for calls that have either. */
const policyModule = lazy(() => import("./call-policy.ts"));
/** Prices and model names: for a client with prices, or a dynamic answer that names no step. */
export const costModule = lazy(() => import("../providers/cost.ts"));

/**
 * The position in `order` of the step an answer's headers name: provider and model (which
 * identify it even when the live service leaves `cf-aig-step` stale) win over the index, as in
 * `routes/served-step.ts`; -1 when they name none.
 */
function servedPosition(
  order: readonly RouteEntry[],
  named: Record<string, string | null>,
): number {
  const { provider, model } = named;
  const step = named.step?.trim() ?? "";
  const index = /^\d+$/.test(step) ? Number(step) : -1;
  if (!provider) return index < order.length ? index : -1;
  let first = -1;
  for (const [position, entry] of order.entries()) {
    if (
      entry.provider === provider &&
      (!model || entry.model === model || model.endsWith(`/${entry.model}`))
    ) {
      if (position === index) return position;
      if (first < 0) first = position;
    }
  }
  return first;
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
    if (recorder && module) {
      const event = module.callEvent(this, answer, error);
      callSafely(() => recorder.record(event), onRecorderError);
    }
    this.settle!(answer, error);
  }

  /** Checks the call's options, then tries the route until an answer or the end of the call. */
  private async attemptAll(): Promise<ChatResponse> {
    const { options, route, client } = this;
    if (route === undefined) {
      throw new UnknownRouteError({
        route: String(options.route),
        knownRoutes: [...this.state.routes.keys()],
      });
    }
    const { messages, signal, validate } = options;
    let settingsOptions = options;
    const problems: string[] = [];
    if (
      !(
        messages?.length > 0 &&
        messages.every(
          (m) => /^(system|user|assistant)$/.test(m?.role) && typeof m.content === "string",
        )
      )
    ) {
      // Its wording loads with the settings' checks: only a call with bad messages needs it.
      problems.push((await settingsModule.load()).messagesProblem);
    }
    // A route's policy picks the chain of a universal call; a scorer adds metadata.
    if (problems.length === 0 && (route.config.policy !== undefined || client.scorer)) {
      const policy = policyModule.loaded ?? (await policyModule.load());
      const planned = policy.planCall(this.state, route, options, this.mode, this.now());
      this.route = planned.route;
      this.metadata = planned.metadata;
      this.decision = planned.decision;
      if (planned.metadata !== options.metadata) {
        settingsOptions = { ...options, metadata: planned.metadata };
      }
    } else {
      this.metadata = options.metadata;
    }
    // Object.assign, not spread: spreading a header object costs over 1 µs on Node 20.
    const headers: Record<string, string> = Object.assign({}, this.state.headers);
    headers["cf-aig-event-id"] = this.id;
    headers["cf-aig-metadata"] = route.metadata;
    this.headers = headers;
    // Gateway settings (cache, metadata, retries...) and overrides load their checks when set.
    if (setsCheckedOption(settingsOptions)) {
      const settings = settingsModule.loaded ?? (await settingsModule.load());
      Object.assign(headers, settings.settingHeaders(settingsOptions, route.name, problems));
    }
    throwProblems("Invalid call options", problems);
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
    const timeoutMs = client.attemptTimeoutMs;
    let signal = this.options.signal;
    let attempt: AbortController | undefined;
    if (timeoutMs !== undefined) {
      const controller = new AbortController();
      attempt = controller;
      this.timer = setTimeout(() => controller.abort(), timeoutMs);
      signal = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
    }
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
      return await this.read(response, order, dynamic, url);
    } catch (cause) {
      if (response === undefined) {
        sent.then((late) => late.body?.cancel().catch(noop), noop);
        this.status = 0;
        this.cacheStatus = this.logId = null;
      } else {
        response.body?.cancel().catch(noop);
      }
      this.check();
      const timedOut = attempt?.signal.aborted ? timeoutMs : undefined;
      return { url, status: 0, kind: "transport", cause, timeoutMs: timedOut };
    } finally {
      clearTimeout(this.timer);
    }
  }

  /** Reads an answer whose headers have arrived: the answer, or the failure. */
  private async read(
    response: Response,
    order: readonly RouteEntry[],
    dynamic: boolean,
    url: string,
  ): Promise<ChatResponse | Failure> {
    const answerHeaders = response.headers;
    const named = {
      step: answerHeaders.get("cf-aig-step"),
      provider: answerHeaders.get("cf-aig-provider"),
      model: answerHeaders.get("cf-aig-model"),
    };
    const cache = answerHeaders.get("cf-aig-cache-status")?.trim().toUpperCase();
    const status = response.status;
    this.status = status;
    this.cacheStatus = cache === "HIT" || cache === "MISS" ? cache : null;
    this.logId = answerHeaders.get("cf-aig-log-id");
    let position = servedPosition(order, named);
    // Without any served-step header a universal answer came from the first step, as Cloudflare's
    // own provider library assumes; an error without one is the last step's (every step failed).
    if (position < 0 && !named.step && !named.provider && !named.model) {
      position = !response.ok ? order.length - 1 : dynamic ? -1 : 0;
    }
    let entry = order[position];
    this.lastEntry = entry ?? this.lastEntry;
    // Its quota headers (and tokens) tell the client's limits, when it has them.
    this.client.limits?.observe(entry, response);
    if (!response.ok) {
      const text = await response.text();
      return { entry, url, status, kind: "status", response, text };
    }
    // The gateway moves on only after a failure: every step before the one that answered failed.
    this.passedOver(order, position);
    if (entry === undefined && !dynamic) {
      return { entry, url, status, kind: "unknown-step", named, sent: order.length };
    }
    const adapter = this.adapters.get(dynamic ? "compat" : entry!.provider)!;
    let answer: StreamAnswer;
    let responseModel = entry?.model ?? "";
    if (this.streamer !== undefined) {
      const reading = await this.streamer.read(response, adapter, entry, url);
      this.check();
      if ("error" in reading) return { entry, url, status, kind: "broken", ...reading };
      answer = reading;
    } else {
      const text = await response.text();
      try {
        const parsed = adapter.parseResponse(text, entry?.model);
        answer = { text: parsed.text, usage: parsed.usage, finish: parsed.finishReason };
        responseModel = parsed.model;
      } catch (cause) {
        return { entry, url, status, kind: "unreadable", detail: (cause as Error).message, cause };
      }
      // A dynamic route's answer without served-step headers: the step whose model the body names
      // (`gpt-4o-mini`, `openai/gpt-4o-mini` or a dated snapshot), when exactly one does.
      if (entry === undefined) {
        entry = (costModule.loaded ?? (await costModule.load())).stepNamedBy(order, responseModel);
      }
    }
    const cached = this.cacheStatus === "HIT";
    const { usage } = answer;

    const prices = this.client.prices;
    let cost: number | null = cached ? 0 : null;
    if (!cached && entry && prices) {
      const { answerCost } = costModule.loaded ?? (await costModule.load());
      cost = answerCost(prices, entry, responseModel, usage);
    }
    return {
      id: this.id,
      text: answer.text,
      usage,
      cost,
      finishReason: answer.finish,
      served: {
        index: entry?.index ?? null,
        provider: entry?.provider ?? null,
        model: entry?.model ?? null,
        responseModel,
        cached,
        logId: this.logId,
        attempts: this.attempts,
        latencyMs: Math.max(0, this.now() - this.startedAt),
      },
    };
  }
}

/** Creates one call: see the module description. `streamer` makes it a streamed call. */
export function createCall(state: ClientState, options: ChatOptions, streamer?: Streamer): Call {
  return new GatewayCall(state, options, streamer);
}
