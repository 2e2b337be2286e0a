/**
 * @module
 * Builds the companion Worker's view of a config (`worker-view.ts`) and its `STEPWISE_CONFIG`
 * text. One function for Pulumi (`src/pulumi/stack.ts`) and the local system (`src/demo`), so the
 * Worker runs on the same bytes in both, and both refuse a view Cloudflare would refuse.
 *
 * @example
 * const text = workerViewText(config); // compact JSON, at most 5,000 bytes
 */
import { ConfigError } from "./errors.ts";
import type { ConfigFinding } from "./findings.ts";
import type { StepwiseConfig } from "./schema.ts";
import { type WorkerView, workerViewVersion } from "./worker-view.ts";

/**
 * The most bytes Stepwise lets a Worker variable hold. Cloudflare documents "Environment variable
 * size: 5 KB" (https://developers.cloudflare.com/workers/platform/limits/) without saying whether
 * a KB is 1,000 or 1,024 bytes; 5,000 is the stricter reading, so nothing passes here that
 * Cloudflare could refuse.
 */
export const maxWorkerVariableBytes = 5_000;

/** The provider of a `provider/model` key (a model id may itself contain `/`). */
function providerOf(modelKey: string): string {
  return modelKey.slice(0, modelKey.indexOf("/"));
}

/**
 * Every provider whose calls the Worker can forward and price: those it holds keys for and those a
 * gateway stores keys for (BYOK, `dynamic/<route>`). The config checks make every route's
 * providers one or the other.
 */
export function workerServedProviders(config: StepwiseConfig): Set<string> {
  const served = new Set(config.keys.providers);
  for (const gateway of config.gateways) {
    for (const provider of gateway.byok?.providers ?? []) served.add(provider);
  }
  return served;
}

/**
 * Per gateway, the `provider/model`s the cron probes through it: every model a route can send
 * (its steps and its policy's chains) whose provider the Worker holds keys for, each once, through
 * the first gateway that sends it. None when `worker.healthProbe.enabled` is false.
 */
function probeTargets(config: StepwiseConfig): Record<string, string[]> {
  const probes: Record<string, string[]> = {};
  if (!config.worker.healthProbe.enabled) return probes;
  const seen = new Set<string>();
  for (const gateway of config.gateways) {
    for (const route of Object.values(gateway.routes)) {
      for (const step of [route.steps, ...Object.values(route.chains ?? {})].flat()) {
        const key = `${step.provider}/${step.model}`;
        if (!config.keys.providers.includes(step.provider) || seen.has(key)) continue;
        seen.add(key);
        const models = probes[gateway.id] ?? [];
        models.push(key);
        probes[gateway.id] = models;
      }
    }
  }
  return probes;
}

/** The Worker's view of a config: only what the Worker reads, and never a secret. */
export function workerView(config: StepwiseConfig): WorkerView {
  const served = workerServedProviders(config);
  const models: WorkerView["models"] = {};
  for (const [key, price] of Object.entries(config.models)) {
    if (served.has(providerOf(key))) models[key] = { input: price.input, output: price.output };
  }
  return {
    version: workerViewVersion,
    accountId: config.accountId,
    gateways: config.gateways.map((gateway) => ({
      id: gateway.id,
      ...(gateway.byok === undefined ? {} : { byok: { providers: [...gateway.byok.providers] } }),
      ...(gateway.cache.ttl === 0 && !gateway.cache.shareBetweenApps
        ? {}
        : {
            cache: {
              ttl: gateway.cache.ttl,
              ...(gateway.cache.shareBetweenApps ? { shareBetweenApps: true } : {}),
            },
          }),
    })),
    models,
    probes: probeTargets(config),
    keys: config.keys,
    worker: {
      gatewayUrl: config.worker.gatewayUrl,
      appRateLimit: config.worker.appRateLimit,
      healthProbe: config.worker.healthProbe,
    },
  };
}

/** What to trim when a part of the view is the one that grew, by its config path. */
const trimAdvice: Record<Exclude<keyof WorkerView, "version">, { path: string; fix: string }> = {
  models: {
    path: "models",
    fix: "drop the prices of models you no longer call (the view keeps only the providers the Worker serves)",
  },
  probes: {
    path: "worker.healthProbe",
    fix: "send fewer distinct models from the routes, or set worker.healthProbe.enabled: false (the probes cover every model of the routes)",
  },
  gateways: { path: "gateways", fix: "declare fewer gateways or BYOK providers" },
  keys: { path: "keys", fix: "remove key caps the providers no longer set" },
  worker: {
    path: "worker.healthProbe.slowMsPerModel",
    fix: "keep fewer slowMsPerModel entries (a provider-wide entry covers its models)",
  },
  accountId: { path: "accountId", fix: "" },
};

/** Bytes of a text as UTF-8 (never fewer than its characters: the stricter count). */
function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}

/**
 * The error finding when the view would not fit a Worker variable, naming its largest part and
 * the fix (`stepwise validate` and the Pulumi preflight report it); none for a config that deploys
 * no Worker (no `keys.providers`) or whose view fits.
 */
export function findWorkerViewProblems(config: StepwiseConfig): ConfigFinding[] {
  if (config.keys.providers.length === 0) return [];
  const problem = oversize(workerView(config));
  return problem === undefined ? [] : [problem];
}

/** The finding for a view past `maxWorkerVariableBytes`, or undefined when it fits. */
function oversize(view: WorkerView): ConfigFinding | undefined {
  const bytes = utf8Bytes(JSON.stringify(view));
  if (bytes <= maxWorkerVariableBytes) return undefined;
  const parts = (Object.keys(trimAdvice) as (keyof typeof trimAdvice)[])
    .map((part) => ({ part, bytes: utf8Bytes(JSON.stringify(view[part])) }))
    .sort((a, b) => b.bytes - a.bytes);
  const largest = trimAdvice[parts[0]!.part];
  const sizes = parts
    .slice(0, 3)
    .map(({ part, bytes: partBytes }) => `${part} ${partBytes}`)
    .join(", ");
  return {
    severity: "error",
    path: largest.path.split("."),
    message: `the companion Worker's view of this config (its STEPWISE_CONFIG variable) is ${bytes} bytes, over the ${maxWorkerVariableBytes} a Worker variable may hold (Cloudflare Workers limits: 5 KB); largest parts in bytes: ${sizes}. To fit, ${largest.fix}`,
  };
}

export interface WorkerViewTextOptions {
  /** Named in the error, e.g. `Pulumi.dev.yaml`. Default `config`. */
  readonly source?: string;
}

/**
 * The `STEPWISE_CONFIG` text: the view as compact JSON.
 * @throws {ConfigError} `config_not_deployable` past `maxWorkerVariableBytes`, naming the part
 * that grew and what to trim.
 */
export function workerViewText(
  config: StepwiseConfig,
  options: WorkerViewTextOptions = {},
): string {
  const view = workerView(config);
  const problem = oversize(view);
  if (problem !== undefined) {
    throw new ConfigError({
      code: "config_not_deployable",
      source: options.source ?? "config",
      issues: [{ path: problem.path.join("."), message: problem.message }],
    });
  }
  return JSON.stringify(view);
}
