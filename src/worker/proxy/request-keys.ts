/**
 * @module
 * The proxy's request shapes (the universal and compat bodies, as zod schemas) and how it finds
 * the key for each provider a call names: one edge read per distinct provider, in parallel;
 * BYOK providers and providers without a key get none.
 */
import { z } from "zod";
import type { GatewayConfig } from "../../config/schema.ts";
import { isKnownProvider } from "../../providers/index.ts";
import { WorkerError } from "../errors.ts";
import type { HandlerContext } from "../handler-context.ts";

/** Where a step's key came from. */
export type KeySource = "current" | "byok" | "missing";

/** The key a step gets, if any. */
export interface ResolvedKey {
  readonly key: string | undefined;
  readonly source: KeySource;
}

const providerSchema = z.string({ error: "provider must be a string" }).refine(isKnownProvider, {
  error: "unknown provider; use an AI Gateway provider slug such as openai or custom-<slug>",
});
export const universalBodySchema = z
  .array(
    z.looseObject({
      provider: providerSchema,
      endpoint: z.string({ error: "endpoint must be a string" }).min(1),
      headers: z.record(z.string(), z.string()).optional(),
      query: z.unknown().optional(),
    }),
    { error: "the universal body must be a JSON array of steps" },
  )
  .min(1, { error: "the universal body needs at least one step" })
  .max(20, { error: "at most 20 steps per universal request" });
export const compatBodySchema = z.looseObject({
  model: z
    .string({ error: 'model is required, as "{provider}/{model}" or "dynamic/{route}"' })
    .regex(/^[a-z0-9-]+\/.+$/, {
      error: 'model must be "{provider}/{model}" or "dynamic/{route}"',
    }),
});

/** The key for each provider: one KV read per distinct provider, all in parallel. */
export async function resolveKeys(
  providers: readonly string[],
  gateway: GatewayConfig,
  context: HandlerContext,
): Promise<ResolvedKey[]> {
  const distinct = [...new Set(providers)];
  const found = await Promise.all(
    distinct.map(async (provider): Promise<ResolvedKey> => {
      if (gateway.byok?.providers.includes(provider)) return { key: undefined, source: "byok" };
      const usable = await context.edge.usableKey(provider);
      return usable === undefined
        ? { key: undefined, source: "missing" }
        : { key: usable.key, source: "current" };
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
