/**
 * @module
 * What every benchmark shares: one gateway config, one route (a Groq primary and an OpenAI
 * fallback, both spoken by mock providers in OpenAI's wire format), the prompt, the keys, and
 * the request bodies each gateway receives for that route.
 */
import type { StepConfig } from "../../src/config/index.ts";
import { compileUniversalRequest, type UniversalStep } from "../../src/routes/index.ts";

export const accountId = "0123456789abcdef0123456789abcdef";
export const gatewayId = "bench";

/** The primary step: the one the failure cases take down. */
export const primary: StepConfig = { provider: "groq", model: "llama-3.1-8b-instant" };
/** The fallback step. */
export const secondary: StepConfig = { provider: "openai", model: "gpt-4o-mini" };
/** The providers the mocks serve. */
export const providers = [primary.provider, secondary.provider] as const;

export const messages = [{ role: "user", content: "What is the capital of Italy?" }] as const;

/** Demo keys; the mocks accept any non-empty key. Never real. */
export function benchKey(provider: string): string {
  return `bench-${provider}-key`;
}

/**
 * The gateway config: no authentication, cache, rate or spend limit on the gateway (Portkey's
 * defaults have none either), logs collected as AI Gateway does by default. The Worker's app
 * rate limit is lifted so it never refuses benchmark traffic.
 */
export function benchConfig(stepTimeoutMs?: number) {
  const timeout = stepTimeoutMs === undefined ? {} : { timeoutMs: stepTimeoutMs };
  return {
    accountId,
    gateways: [
      {
        id: gatewayId,
        authentication: false,
        routes: {
          default: [{ ...primary, ...timeout }, secondary],
          direct: [secondary],
        },
      },
    ],
    keys: { providers: [...providers] },
    worker: { appRateLimit: { limit: 10_000_000, windowSeconds: 60 } },
    models: {
      "groq/llama-3.1-8b-instant": { input: 0.05, output: 0.08 },
      "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
    },
  };
}

/** The universal request body for steps, with keys in each step's headers. */
export function universalBody(steps: readonly StepConfig[]): UniversalStep[] {
  return compileUniversalRequest({ steps: [...steps] }, { messages }, { keyLookup: benchKey });
}

/** The OpenAI chat body a client sends to Portkey's `/v1/chat/completions`. */
export function openAiChatBody(model: string): string {
  return JSON.stringify({ model, messages });
}
