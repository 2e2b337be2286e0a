/**
 * @module
 * Provider health probes: a one-token request to each provider with a key in the Worker, sent
 * through the gateway like any app call, classified as `healthy`, `degraded` (slow, or rate
 * limited) or `down`, and stored in KV under `health:{provider}`. `GET /health` serves the latest
 * results so clients can reorder their chains.
 */
import type { StepwiseConfig } from "../config/schema.ts";
import { getProvider } from "../providers/index.ts";
import { jsonResponse } from "./errors.ts";
import type { HandlerContext } from "./handler-context.ts";
import { keyLayout } from "./key-layout.ts";
import { listAll } from "./kv-list.ts";
import { stepHeaders } from "./proxy/headers.ts";

/** A provider's latest probe result. */
export interface ProviderHealth {
  readonly provider: string;
  readonly status: "healthy" | "degraded" | "down";
  /** Time to the response's headers, in ms; null when the gateway was not reached. */
  readonly latencyMs: number | null;
  /** HTTP status of the probe; 0 when the gateway was not reached or timed out. */
  readonly httpStatus: number;
  readonly gateway: string;
  readonly model: string;
  readonly checkedAt: string;
}

/** How long a stored result is kept, in seconds. */
const healthTtlSeconds = 3600;

/** Probes every provider that has a usable key and a model in some route; stores the results. */
export async function probeProviders(context: HandlerContext): Promise<ProviderHealth[]> {
  const { config } = context.settings;
  const targets = config.keys.providers
    .map((provider) => ({ provider, ...findProbeTarget(config, provider) }))
    .filter(
      (target): target is { provider: string; gateway: string; model: string } =>
        target.gateway !== undefined,
    );
  // One at a time: a probe's latency is then its own, and a cron has minutes to spare.
  const results: ProviderHealth[] = [];
  for (const target of targets) results.push(await probeOne(target, context));
  return results;
}

/** The first gateway and model whose routes use a provider. */
function findProbeTarget(
  config: StepwiseConfig,
  provider: string,
): { gateway?: string; model?: string } {
  for (const gateway of config.gateways) {
    for (const route of Object.values(gateway.routes)) {
      const step = route.steps.find((candidate) => candidate.provider === provider);
      if (step !== undefined) return { gateway: gateway.id, model: step.model };
    }
  }
  return {};
}

async function probeOne(
  target: { provider: string; gateway: string; model: string },
  context: HandlerContext,
): Promise<ProviderHealth> {
  const { provider, gateway, model } = target;
  const { settings } = context;
  const slowMs = settings.config.worker.healthProbe.slowMs;
  const usable = await context.edge.usableKey(provider);
  const adapter = getProvider(provider);
  const request = { messages: [{ role: "user" as const, content: "ping" }], maxTokens: 1 };
  const step = {
    provider,
    endpoint: adapter.endpoint(model, request),
    headers: stepHeaders(undefined, provider, usable?.key),
    query: adapter.requestBody(model, request),
    config: { requestTimeout: slowMs * 2, maxAttempts: 1 },
  };
  const headers = new Headers({
    "content-type": "application/json",
    "cf-aig-skip-cache": "true",
    "cf-aig-metadata": JSON.stringify({ stepwise: "health-probe" }),
  });
  if (settings.gatewayToken !== undefined) {
    headers.set("cf-aig-authorization", `Bearer ${settings.gatewayToken}`);
  }
  const started = context.now();
  let httpStatus = 0;
  let latencyMs: number | null = null;
  try {
    const response = await context.fetch(
      `${settings.gatewayUrl}/v1/${settings.config.accountId}/${gateway}`,
      {
        method: "POST",
        headers,
        body: JSON.stringify([step]),
        signal: AbortSignal.timeout(slowMs * 3),
      },
    );
    latencyMs = context.now() - started;
    httpStatus = response.status;
    await response.body?.cancel();
  } catch {
    // Unreachable or timed out: reported as down below.
  }
  const status: ProviderHealth["status"] =
    httpStatus >= 200 && httpStatus < 300
      ? latencyMs !== null && latencyMs >= slowMs
        ? "degraded"
        : "healthy"
      : httpStatus === 429
        ? "degraded"
        : "down";
  const result: ProviderHealth = {
    provider,
    status,
    latencyMs,
    httpStatus,
    gateway,
    model,
    checkedAt: new Date(context.now()).toISOString(),
  };
  await context.kv.put(keyLayout.health(provider), JSON.stringify(result), {
    metadata: result,
    expirationTtl: healthTtlSeconds,
  });
  return result;
}

/** `GET /health`: the latest stored probe result per provider. */
export async function healthResponse(context: HandlerContext): Promise<Response> {
  const listed = await listAll<ProviderHealth>(context.kv, keyLayout.healthPrefix);
  const providers: Record<string, ProviderHealth> = {};
  for (const entry of listed) {
    if (entry.metadata != null) providers[entry.metadata.provider] = entry.metadata;
  }
  return jsonResponse({
    probesEnabled: context.settings.config.worker.healthProbe.enabled,
    providers,
  });
}
