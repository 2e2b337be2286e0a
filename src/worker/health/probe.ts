/**
 * @module
 * Health probes (the cron's, with `worker.healthProbe.enabled`): a one-token request to every
 * provider/model the routes use and the Worker holds keys for, sent through the gateway like any
 * app call, timed to the answer's headers and checked that its body parses as the provider's
 * answer. Each result goes to the provider's `ProviderMonitor`, which judges it against the
 * model's history (`model-health.ts`); the published states are written to KV `report:health`
 * for `GET /health`.
 */
import type { WorkerView } from "../../config/worker-view.ts";
import { getProvider } from "../../providers/index.ts";
import type { HandlerContext } from "../handler-context.ts";
import { keyLayout } from "../key-layout.ts";
import { classifyAnswer } from "../proxy/gateway-refusal.ts";
import { stepHeaders } from "../proxy/headers.ts";
import { type HealthDocument, healthDocument, type ModelHealthView } from "./health-document.ts";
import type { ProbeResult } from "./model-health.ts";

/** One provider/model to probe, and the gateway to probe it through. */
export interface ProbeTarget {
  readonly provider: string;
  readonly model: string;
  readonly gateway: string;
}

/** The `slowMs` of a provider/model: `slowMsPerModel` for the model, else the provider, else `slowMs`. */
export function slowMsFor(config: WorkerView, provider: string, model: string): number {
  const { slowMs, slowMsPerModel } = config.worker.healthProbe;
  return slowMsPerModel[`${provider}/${model}`] ?? slowMsPerModel[provider] ?? slowMs;
}

/**
 * The view's probe targets (every provider/model of the routes whose provider the Worker holds
 * keys for, each once: `workerView` picks them), in `provider/model` order.
 */
export function probeTargets(config: WorkerView): ProbeTarget[] {
  const targets = Object.entries(config.probes).flatMap(([gateway, models]) =>
    models.map((key) => {
      const slash = key.indexOf("/");
      return { provider: key.slice(0, slash), model: key.slice(slash + 1), gateway };
    }),
  );
  return targets.sort((a, b) =>
    `${a.provider}/${a.model}`.localeCompare(`${b.provider}/${b.model}`),
  );
}

/** Probes every target, records each with its provider's monitor, publishes the document. */
export async function probeProviders(context: HandlerContext): Promise<HealthDocument> {
  const { config } = context.settings;
  const { probationSeconds } = config.worker.healthProbe;
  const views: ModelHealthView[] = [];
  // One at a time: a probe's latency is then its own, and a cron has minutes to spare.
  for (const target of probeTargets(config)) {
    const slowMs = slowMsFor(config, target.provider, target.model);
    const monitor = context.monitor(target.provider);
    const probe = await probeOne(target, slowMs, context);
    if (probe === "refused-by-gateway") {
      // The gateway's own 401/429 says nothing about the provider: keep what was known.
      context.logger.warn(
        `stepwise worker: the gateway refused the health probe of ${target.provider}/${target.model} itself (its rate limit or the gateway token); its health is unchanged`,
      );
      const known = (await monitor.models()).find((record) => record.model === target.model);
      if (known !== undefined) views.push({ provider: target.provider, slowMs, record: known });
      continue;
    }
    const record = await monitor.recordProbe(probe, { slowMs, probationSeconds });
    views.push({ provider: target.provider, slowMs, record });
  }
  const document = healthDocument(config, views, context.now());
  await context.kv.put(keyLayout.healthReport, JSON.stringify(document));
  return document;
}

async function probeOne(
  target: ProbeTarget,
  slowMs: number,
  context: HandlerContext,
): Promise<ProbeResult | "refused-by-gateway"> {
  const { provider, gateway, model } = target;
  const { settings } = context;
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
  let parsed = false;
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
    const { response: answer, byGateway } = await classifyAnswer(response);
    if (byGateway) {
      await answer.body?.cancel();
      return "refused-by-gateway";
    }
    if (answer.ok) {
      try {
        adapter.parseResponse(await answer.text(), model);
        parsed = true;
      } catch {
        // Reported as an answer that did not parse.
      }
    } else await answer.body?.cancel();
  } catch {
    // Unreachable or timed out: reported as down.
  }
  return { model, latencyMs, httpStatus, parsed, checkedAt: context.now() };
}
