/**
 * @module
 * `stepwise-gateway/client/otel`: OpenTelemetry for the thin client, as a {@link Recorder}. For
 * each call it emits one span and the metrics of the GenAI semantic conventions (provider, model,
 * token usage, duration) with Stepwise's own attributes: route, served step, fallback, failed
 * steps, cache. It is built on the client's recording hook (the recorder receives exactly one
 * event per call), so it changes nothing on the call's path and adds nothing to the core bundle.
 *
 * `@opentelemetry/api` is an optional peer: the recorder loads it on first use from whatever
 * the app installed, and when it is absent records nothing (and never throws). Spans and metrics
 * go to the app's global tracer and meter providers, or to the `tracer` / `meter` given.
 *
 * Per call:
 * - a span `chat <model>` of kind CLIENT from the event's `time` for its `latencyMs`, with
 *   `gen_ai.operation.name` `chat`, `gen_ai.provider.name` (the well-known value, `semconv.ts`),
 *   `gen_ai.request.model` (the first step tried), `gen_ai.response.model` (the one that served),
 *   `gen_ai.usage.input_tokens` / `output_tokens`, `error.type` and an ERROR status when the call
 *   failed, and `stepwise.gateway`, `.route`, `.mode`, `.served_step`, `.fallback`,
 *   `.failed_steps` (a count), `.cache` (`HIT`/`MISS`), `.attempts`, `.cost`, `.streamed`; one
 *   span event `stepwise.step_failed` per failed step (step, provider, model, status, code, where);
 * - metrics `gen_ai.client.operation.duration` (s) and `gen_ai.client.token.usage` ({token}, by
 *   `gen_ai.token.type`), and `stepwise.calls` ({call}: by route, served step, fallback, ok,
 *   cache: the step rates of the report, `docs/analytics.md`), `stepwise.cost` (USD) and
 *   `stepwise.failed_steps` ({step}: by route, step, provider, status).
 *
 * @example
 * ```ts
 * import { createGatewayClient } from "stepwise-gateway/client";
 * import { otelRecorder } from "stepwise-gateway/client/otel";
 * const client = createGatewayClient({ ...options, recorder: otelRecorder({ next: fileRecorder }) });
 * ```
 */
import type { Attributes, Meter, Tracer } from "@opentelemetry/api";
import type { CallEvent } from "../event.ts";
import type { BreakerTransition, Recorder } from "../types.ts";
import { genAi, providerNameOf, stepwise } from "./semconv.ts";

export { genAi, providerNameOf, providerNames, stepwise } from "./semconv.ts";

/** The parts of `@opentelemetry/api` the recorder uses. */
export type OpenTelemetryApi = Pick<
  typeof import("@opentelemetry/api"),
  "trace" | "metrics" | "SpanKind" | "SpanStatusCode"
>;

export interface OtelRecorderOptions {
  /** Tracer to use (default: the global provider's `stepwise-gateway` tracer). */
  readonly tracer?: Tracer;
  /** Meter to use (default: the global provider's `stepwise-gateway` meter). */
  readonly meter?: Meter;
  /** Also emit the deprecated `gen_ai.system` beside `gen_ai.provider.name`, for older backends. */
  readonly legacySystemAttribute?: boolean;
  /** A recorder that also gets every event and breaker transition (a file, say). */
  readonly next?: Recorder;
  /**
   * How to load `@opentelemetry/api` (default: `import("@opentelemetry/api")`); resolving to
   * undefined, or failing, means "absent": nothing is emitted.
   */
  readonly loadApi?: () => Promise<OpenTelemetryApi | undefined>;
}

const scope = "stepwise-gateway";

interface Instruments {
  readonly api: OpenTelemetryApi;
  readonly tracer: Tracer;
  readonly duration: ReturnType<Meter["createHistogram"]>;
  readonly tokens: ReturnType<Meter["createHistogram"]>;
  readonly calls: ReturnType<Meter["createCounter"]>;
  readonly cost: ReturnType<Meter["createCounter"]>;
  readonly failedSteps: ReturnType<Meter["createCounter"]>;
}

/** `@opentelemetry/api` as the app installed it, or undefined when it did not. */
async function defaultLoadApi(): Promise<OpenTelemetryApi | undefined> {
  try {
    return await import("@opentelemetry/api");
  } catch {
    return undefined;
  }
}

/** A recorder that emits a span and metrics per call (see the module doc). */
export function otelRecorder(options: OtelRecorderOptions = {}): Recorder {
  let instruments: Promise<Instruments | undefined> | undefined;
  const ready = () => {
    instruments ??= (options.loadApi ?? defaultLoadApi)()
      .then((api) => (api ? instrumentsOf(api, options) : undefined))
      .catch(() => undefined);
    return instruments;
  };
  const recorder: Recorder = {
    async record(event: CallEvent) {
      const forward = options.next?.record(event);
      const found = await ready();
      if (found) emit(found, event, options.legacySystemAttribute === true);
      await forward;
    },
  };
  if (options.next?.breaker) {
    const next = options.next;
    recorder.breaker = (transition: BreakerTransition) => next.breaker?.(transition);
  }
  return recorder;
}

function instrumentsOf(api: OpenTelemetryApi, options: OtelRecorderOptions): Instruments {
  const meter = options.meter ?? api.metrics.getMeter(scope);
  return {
    api,
    tracer: options.tracer ?? api.trace.getTracer(scope),
    duration: meter.createHistogram(genAi.operationDuration, {
      unit: "s",
      description: "GenAI operation duration.",
      advice: {
        explicitBucketBoundaries: [
          0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
        ],
      },
    }),
    tokens: meter.createHistogram(genAi.tokenUsage, {
      unit: "{token}",
      description: "Measures number of input and output tokens used.",
      advice: {
        explicitBucketBoundaries: [
          1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
        ],
      },
    }),
    calls: meter.createCounter(stepwise.calls, {
      unit: "{call}",
      description: "Calls per route and served step (the step rates).",
    }),
    cost: meter.createCounter(stepwise.costMetric, {
      unit: "USD",
      description: "Cost of the calls, from the client's price table.",
    }),
    failedSteps: meter.createCounter(stepwise.failedStepsMetric, {
      unit: "{step}",
      description: "Steps that failed on the way to a call's answer.",
    }),
  };
}

/** The model the call asked for first: its first failed step's, else the one that answered. */
function requestModelOf(event: CallEvent): string | null {
  return event.failedSteps?.[0]?.model ?? event.model;
}

function requestProviderOf(event: CallEvent): string | null {
  return event.failedSteps?.[0]?.provider ?? event.provider;
}

function emit(found: Instruments, event: CallEvent, legacy: boolean): void {
  const { api } = found;
  const provider = event.provider ?? requestProviderOf(event);
  const requestModel = requestModelOf(event);
  const errorType = event.ok ? null : (event.errorCode ?? `http_${event.status}`);
  const common: Attributes = {
    [genAi.operationName]: "chat",
    [stepwise.gateway]: event.gateway,
    [stepwise.route]: event.route,
    [stepwise.fallback]: event.step !== null && event.step >= 1,
  };
  if (provider !== null) {
    common[genAi.providerName] = providerNameOf(provider);
    if (legacy) common[genAi.system] = providerNameOf(provider);
  }
  if (requestModel !== null) common[genAi.requestModel] = requestModel;
  if (event.ok && event.model !== null) common[genAi.responseModel] = event.model;
  if (event.step !== null) common[stepwise.servedStep] = event.step;
  if (errorType !== null) common[genAi.errorType] = errorType;

  const start = Date.parse(event.time);
  const span = found.tracer.startSpan(`chat${requestModel === null ? "" : ` ${requestModel}`}`, {
    kind: api.SpanKind.CLIENT,
    startTime: start,
    attributes: {
      ...common,
      [stepwise.mode]: event.mode,
      [stepwise.failedSteps]: event.failedSteps?.length ?? 0,
      [stepwise.attempts]: event.attempts,
      [stepwise.streamed]: event.streamed,
      ...(event.cacheStatus === null ? {} : { [stepwise.cache]: event.cacheStatus }),
      ...(event.tokensIn === null ? {} : { [genAi.inputTokens]: event.tokensIn }),
      ...(event.tokensOut === null ? {} : { [genAi.outputTokens]: event.tokensOut }),
      ...(event.cost === null ? {} : { [stepwise.cost]: event.cost }),
    },
  });
  for (const failed of event.failedSteps ?? []) {
    span.addEvent(
      stepwise.stepFailed,
      {
        [stepwise.step]: failed.step,
        [genAi.providerName]: providerNameOf(failed.provider),
        [genAi.requestModel]: failed.model,
        [stepwise.at]: failed.at,
        ...(failed.status === null ? {} : { [stepwise.status]: failed.status }),
        ...(failed.errorCode === null ? {} : { [stepwise.errorCode]: failed.errorCode }),
      },
      start,
    );
  }
  if (!event.ok) {
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: errorType ?? "failed" });
  }
  span.end(start + event.latencyMs);

  found.duration.record(event.latencyMs / 1000, common);
  if (event.tokensIn !== null) {
    found.tokens.record(event.tokensIn, { ...common, [genAi.tokenType]: "input" });
  }
  if (event.tokensOut !== null) {
    found.tokens.record(event.tokensOut, { ...common, [genAi.tokenType]: "output" });
  }
  found.calls.add(1, {
    [stepwise.gateway]: event.gateway,
    [stepwise.route]: event.route,
    [stepwise.servedStep]: event.step === null ? "none" : String(event.step),
    [stepwise.fallback]: event.step !== null && event.step >= 1,
    [stepwise.ok]: event.ok,
    ...(event.cacheStatus === null ? {} : { [stepwise.cache]: event.cacheStatus }),
  });
  if (event.cost !== null && event.cost > 0) {
    found.cost.add(event.cost, {
      [stepwise.gateway]: event.gateway,
      [stepwise.route]: event.route,
      ...(provider === null ? {} : { [genAi.providerName]: providerNameOf(provider) }),
    });
  }
  for (const failed of event.failedSteps ?? []) {
    found.failedSteps.add(1, {
      [stepwise.gateway]: event.gateway,
      [stepwise.route]: event.route,
      [stepwise.step]: failed.step,
      [genAi.providerName]: providerNameOf(failed.provider),
      [stepwise.status]: failed.status === null ? "none" : String(failed.status),
    });
  }
}
