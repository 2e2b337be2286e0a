/**
 * @module
 * `stepwise-gateway/client/fetch`: a drop-in `fetch` for any SDK, recorded like the client's own calls.
 *
 * `createGatewayFetch(options)` takes the client's options. Requests to the gateway get the
 * gateway token (unless they carry one) and an event id, and each records one `CallEvent` (mode
 * `fetch`) with the step the gateway names in `cf-aig-step` / `cf-aig-provider` / `cf-aig-model`.
 * Requests to the REST API (an SDK whose `baseURL` is `…/client/v4/accounts/{account}/ai/v1`) are
 * recorded the same way; they get the client's gateway in `cf-aig-gateway-id` unless they name one,
 * and never the gateway token (the SDK's API token authenticates them).
 * The response goes back untouched (a failure an SDK may retry: byte for byte, its body watched
 * for whether the SDK reads it); usage is read from a copy once its body ends (a stream's too,
 * when it carries usage: `fetch-usage.ts`). An SDK's own retries of a request are one call, with
 * one event id and one event counting every try (`fetch-retries.ts`). Other URLs pass straight
 * through, unrecorded.
 *
 * What a raw pass-through cannot do: it hands the SDK the gateway's response as it comes, so it
 * cannot read an answer before the SDK does, move on to the next steps after a refusal, or fail
 * over mid-stream. The gateway's own fallback (before the first byte) still applies; a stream
 * that breaks or ends without the provider's completion signal is recorded as
 * `incomplete_stream`, and the SDK sees the break. For failover after the first byte, use
 * `client.stream`.
 * @example
 * import { createGatewayFetch } from "stepwise-gateway/client/fetch";
 * const openai = new OpenAI({ apiKey: "unused", baseURL: client.url("compat"), fetch: createGatewayFetch(options) });
 * await openai.chat.completions.create({ model: "dynamic/default", messages });
 */

import { computeCost, getProvider, isKnownProvider, type TokenUsage } from "../providers/index.ts";
import { withAttemptPlace } from "../wire/attempt-place.ts";
import { ApiCallError } from "./answer-errors.ts";
import { callSafely } from "./call-event.ts";
import { gatewayUrlOf } from "./client.ts";
import type { CallEvent, FailedStep } from "./event.ts";
import {
  type GatewayFetchOptions,
  HeldFailures,
  readWatched,
  requestKey,
  sdkMayRetry,
  sdkTryOf,
} from "./fetch-retries.ts";

export type { GatewayFetchOptions } from "./fetch-retries.ts";

import { modelOf, parseBody, requestFacts, servedFacts } from "./fetch-facts.ts";
import { readUsage } from "./fetch-usage.ts";
import { restAiUrlOf } from "./rest/rest-names.ts";
import { restRequestFacts } from "./rest/rest-request-facts.ts";
import type { FetchFunction, GatewayClientOptions } from "./types.ts";

/**
 * Builds a recorded `fetch` for the gateway of `options` (the same options as
 * `createGatewayClient`'s; `accountId`, `gatewayId` and `recorder` are the ones that matter).
 */
export function createGatewayFetch(
  options: GatewayClientOptions,
  fetchOptions: GatewayFetchOptions = {},
): FetchFunction {
  const gatewayUrl = gatewayUrlOf(options);
  const restUrl = `${restAiUrlOf(options)}/`;
  const baseFetch: FetchFunction = (input, init) => (options.fetch ?? fetch)(input, init);
  const held = new HeldFailures(fetchOptions.sdkRetryWindowMs);
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const withoutQuery = url.split("?")[0] ?? url;
    const path =
      withoutQuery === gatewayUrl
        ? ""
        : withoutQuery.startsWith(`${gatewayUrl}/`)
          ? withoutQuery.slice(gatewayUrl.length + 1)
          : undefined;
    const restPath = withoutQuery.startsWith(restUrl)
      ? withoutQuery.slice(restUrl.length)
      : undefined;
    if (path === undefined && restPath === undefined) return baseFetch(input, init);

    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    for (const [name, value] of new Headers(init?.headers)) headers.set(name, value);
    if (restPath !== undefined) {
      if (!headers.has("cf-aig-gateway-id")) headers.set("cf-aig-gateway-id", options.gatewayId);
    } else if (options.gatewayToken !== undefined && !headers.has("cf-aig-authorization")) {
      headers.set("cf-aig-authorization", `Bearer ${options.gatewayToken}`);
    }
    // An SDK's retry of a request it sent before continues that call (`fetch-retries.ts`).
    const sdkTry = sdkTryOf(headers);
    const key =
      sdkTry === null ? null : requestKey(init?.method ?? "GET", withoutQuery, init?.body);
    const earlier = key === null ? undefined : held.resume(key, sdkTry);
    const id =
      earlier?.id ??
      headers.get("cf-aig-event-id") ??
      (options.generateId ?? (() => crypto.randomUUID()))();
    headers.set("cf-aig-event-id", id);
    const facts =
      path === undefined
        ? restRequestFacts(restPath!, modelOf(parseBody(init?.body)))
        : requestFacts(path, init?.body);
    const gateway = restPath === undefined ? options.gatewayId : headers.get("cf-aig-gateway-id")!;
    const now = () => (options.now ?? Date.now)();
    const startedAt = earlier?.startedAt ?? now();
    const attempts = (earlier?.attempts ?? 0) + 1;
    if (attempts > 1 && facts.kind !== "dynamic") {
      // The try's place in the call, so the gateway's logs join it to the tries before.
      const steps =
        facts.kind === "universal" ? facts.universalSteps.map((_, index) => index) : [0];
      const metadata = withAttemptPlace(headers.get("cf-aig-metadata"), {
        attempt: attempts,
        steps: steps.length > 0 ? steps : [0],
        elapsedMs: now() - startedAt,
      });
      if (metadata !== null) headers.set("cf-aig-metadata", metadata);
    }
    /** Records the try's event; returns what records a held failure at once (see `hold`). */
    const record = (response: Response | null, outcome: Outcome): (() => void) | undefined => {
      const recorder = options.recorder;
      if (recorder === undefined) return;
      const cacheStatus = response?.headers.get("cf-aig-cache-status")?.toUpperCase();
      const cached = cacheStatus === "HIT";
      const usage = outcome.usage ?? null;
      const provider = outcome.provider ?? facts.provider;
      const model = outcome.model ?? facts.model;
      const errorCode = outcome.errorCode ?? null;
      const event: CallEvent = {
        time: new Date(startedAt).toISOString(),
        id,
        gateway,
        route: facts.route,
        mode: "fetch",
        endpoint:
          restPath !== undefined
            ? "rest"
            : path === ""
              ? "universal"
              : path!.startsWith("compat/")
                ? "compat"
                : "provider",
        step: errorCode === null ? (outcome.step ?? null) : null,
        provider,
        model,
        status: outcome.status,
        ok: errorCode === null,
        cacheStatus: cached || cacheStatus === "MISS" ? (cacheStatus as "HIT" | "MISS") : null,
        latencyMs: Math.max(0, now() - startedAt),
        tokensIn: usage?.tokensIn ?? null,
        tokensOut: usage?.tokensOut ?? null,
        cost:
          usage === null || provider === null || model === null
            ? null
            : cached
              ? 0
              : (computeCost(options.prices ?? {}, provider, model, usage) ?? null),
        errorCode,
        logId: response?.headers.get("cf-aig-log-id") ?? null,
        attempts,
        streamed: outcome.streamed ?? false,
      };
      const failedSteps = earlier?.failedSteps ?? [];
      if (failedSteps.length > 0) event.failedSteps = [...failedSteps];
      const write = (written: CallEvent) =>
        callSafely(() => recorder.record(written), options.onRecorderError);
      if (key !== null && errorCode !== null && outcome.held === true && held.windowMs > 0) {
        const failed: FailedStep = {
          step: outcome.step ?? 0,
          provider: provider ?? "",
          model: model ?? "",
          status: outcome.status || null,
          errorCode,
          at: "request",
        };
        return held.hold(
          key,
          event,
          { startedAt, attempts, failedSteps: [...failedSteps, failed] },
          response,
          now(),
          write,
        );
      }
      write(event);
      return undefined;
    };

    let response: Response;
    try {
      response = await baseFetch(input, { ...init, headers });
    } catch (error) {
      const aborted = init?.signal?.aborted === true || (error as Error)?.name === "AbortError";
      record(null, {
        status: 0,
        errorCode: aborted ? "aborted" : "network_error",
        held: !aborted && sdkMayRetry(null),
      });
      throw error;
    }
    const served = servedFacts(options.routes, facts, response.headers);
    if (!response.ok) {
      const errorCode = ApiCallError.fromResponse({ status: response.status, url }).code;
      const release = record(response, {
        ...served,
        status: response.status,
        errorCode,
        held: sdkMayRetry(response),
      });
      // An SDK that reads the error's body to the end gives up: the held failure is final.
      return release === undefined ? response : readWatched(response, release);
    }
    // The format the answer comes in: a REST endpoint's own, else OpenAI's on compat, else the provider's.
    const format =
      restPath !== undefined
        ? facts.adapter
        : facts.kind === "dynamic" || facts.kind === "compat"
          ? "openai"
          : served.provider !== null && isKnownProvider(served.provider)
            ? served.provider
            : undefined;
    const adapter = format === undefined ? undefined : getProvider(format);
    readUsage(response.clone(), adapter).then((usage) =>
      record(response, { ...served, status: response.status, ...usage }),
    );
    return response;
  };
}

interface Outcome extends Partial<Pick<CallEvent, "step" | "provider" | "model">> {
  readonly status: number;
  readonly errorCode?: string | null;
  readonly usage?: TokenUsage | null;
  readonly streamed?: boolean;
  /** A failure the SDK may retry: held for its retry (with an SDK that numbers its tries). */
  readonly held?: boolean;
}
