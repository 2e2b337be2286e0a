/**
 * @module
 * The proxy's request shapes (the universal and compat bodies, checked by hand:
 * `src/config/plain-checks.ts`) and how it finds
 * the keys for each provider a call names: one edge read per distinct provider (its whole pool),
 * in parallel, ordered for this call by the isolate's `KeyPoolTracker`. A provider the gateway
 * keeps in BYOK and the Worker holds no key for gets none (the gateway adds its stored key); a
 * provider whose keys the Worker holds gets them, BYOK or not, so proxied and `dynamic/<route>`
 * calls follow the same rotations.
 */
import { array, object, optional, record, required, string } from "../../config/plain-checks.ts";
import type { WorkerViewGateway } from "../../config/worker-view.ts";
import { isKnownProvider } from "../../providers/index.ts";
import type { UsableKey } from "../edge-reader.ts";
import { WorkerError } from "../errors.ts";
import type { HandlerContext } from "../handler-context.ts";

/** Where a step's key came from. */
export type KeySource = "current" | "byok" | "missing";

/** The keys a provider gets for one call. */
export interface ResolvedPool {
  readonly provider: string;
  readonly source: KeySource;
  /** In the order to try them; empty for `byok` and `missing`, and when every key is blocked. */
  readonly keys: readonly UsableKey[];
  /** Set when the Worker holds keys for the provider but none may be sent now (at a cap). */
  readonly blocked: { readonly until: number; readonly reason: string } | null;
}

/** The key a single-provider step gets, if any. */
export interface ResolvedKey {
  readonly key: string | undefined;
  readonly source: KeySource;
}

const providerCheck = string("provider must be a string", [
  isKnownProvider,
  "unknown provider; use an AI Gateway provider slug such as openai or custom-<slug>",
]);
const stepCheck = object(
  {
    provider: required(providerCheck),
    endpoint: required(
      string("endpoint must be a string", [(text) => text.length >= 1, "endpoint is empty"]),
    ),
    headers: optional(
      record(
        string("a header name must be a string"),
        string("a header value must be a string"),
        "headers must be an object of strings",
      ),
    ),
    query: optional<unknown>((value) => value),
  },
  "a step must be an object: { provider, endpoint, headers?, query? }",
  "keep",
);
export const universalBodySchema = array(
  stepCheck,
  "the universal body must be a JSON array of steps",
  [(steps) => steps.length >= 1, "the universal body needs at least one step"],
  [(steps) => steps.length <= 20, "at most 20 steps per universal request"],
);
export const compatBodySchema = object(
  {
    model: required(
      string('model is required, as "{provider}/{model}" or "dynamic/{route}"', [
        (model) => /^[a-z0-9-]+\/.+$/.test(model),
        'model must be "{provider}/{model}" or "dynamic/{route}"',
      ]),
    ),
  },
  "the body must be a JSON object: { model, messages, … }",
  "keep",
);

/** The pool of each provider: one KV read per distinct provider, all in parallel. */
export async function resolvePools(
  providers: readonly string[],
  gateway: WorkerViewGateway,
  context: HandlerContext,
): Promise<ResolvedPool[]> {
  const distinct = [...new Set(providers)];
  const { caps } = context.settings.config.keys;
  const found = await Promise.all(
    distinct.map(async (provider): Promise<ResolvedPool> => {
      const keys = await context.edge.usableKeys(provider);
      if (keys.length === 0) {
        const source = gateway.byok?.providers.includes(provider) ? "byok" : "missing";
        return { provider, source, keys: [], blocked: null };
      }
      const plan = context.pools.plan(provider, keys, caps[provider], context.now());
      return { provider, source: "current", keys: plan.keys, blocked: plan.blocked };
    }),
  );
  const byProvider = new Map(distinct.map((provider, index) => [provider, found[index]!]));
  return providers.map((provider) => byProvider.get(provider)!);
}

/** The model a universal step asks for: `query.model`, else its endpoint (Workers AI). */
export function modelOf(step: { endpoint: string; query?: unknown }): string {
  const query = step.query;
  if (typeof query === "object" && query !== null && "model" in query) {
    const model = (query as { model: unknown }).model;
    if (typeof model === "string") return model;
  }
  return step.endpoint;
}

export function unknownProvider(): WorkerError {
  return new WorkerError({
    status: 400,
    code: "unknown_provider",
    message:
      "Unknown provider in the request: use an AI Gateway provider slug such as openai, anthropic, workers-ai, or custom-<slug>.",
  });
}

export function noUsableKey(provider: string): WorkerError {
  return new WorkerError({
    status: 503,
    code: "no_usable_key",
    message: `The Worker holds no usable key for ${provider}: rotate one in with \`stepwise rotate ${provider} --key-file <file>\`, or store it in the gateway (byok.providers).`,
  });
}

/** Every key of the provider's pool is at a cap: a certain 429, so nothing is sent. */
export function providerAtCap(pools: readonly ResolvedPool[], now: number): WorkerError {
  const blocked = pools.filter((pool) => pool.blocked !== null);
  const until = Math.min(...blocked.map((pool) => pool.blocked!.until));
  const seconds = Math.max(1, Math.ceil((until - now) / 1000));
  const reasons = blocked.map((pool) => `${pool.provider} (${pool.blocked!.reason})`).join(", ");
  return new WorkerError({
    status: 429,
    code: "provider_at_cap",
    message: `Every key of ${reasons} is at its provider's limit; retry after ${seconds} s, or add a key to the pool (stepwise rotate <provider> --pool-key <name>).`,
    headers: { "retry-after": String(seconds) },
  });
}
