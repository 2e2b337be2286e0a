/**
 * @module
 * Cost accounting from the `stepwise:models` price table.
 */

import type { TokenUsage } from "./types.ts";

/** USD per million tokens for one model. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
}

/** Prices keyed `"<provider>/<model>"`, e.g. `"openai/gpt-4o-mini"`. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * A model name without its dated snapshot suffix: `-2024-07-18` (OpenAI) or `-20250929`
 * (Anthropic), so `claude-sonnet-4-5-20250929` gives `claude-sonnet-4-5`.
 */
export function withoutSnapshot(model: string): string {
  return model.replace(/-(?:\d{4}-\d{2}-\d{2}|\d{8})$/, "");
}

/**
 * The cost in USD of one call, or `undefined` when the table has no price for the model.
 *
 * Providers answer with dated snapshot names (`claude-sonnet-4-5-20250929`) where the config
 * names the alias (`claude-sonnet-4-5`); when the exact name has no price, the name without its
 * date suffix is tried.
 * @example
 * computeCost({ "openai/gpt-4o-mini": { input: 0.15, output: 0.6 } }, "openai", "gpt-4o-mini",
 *   { tokensIn: 1000, tokensOut: 500 }); // 0.00045
 */
export function computeCost(
  prices: PriceTable,
  provider: string,
  model: string,
  usage: TokenUsage,
): number | undefined {
  const price =
    priceOf(prices, `${provider}/${model}`) ??
    priceOf(prices, `${provider}/${withoutSnapshot(model)}`);
  if (price === undefined) return undefined;
  return (usage.tokensIn * price.input + usage.tokensOut * price.output) / 1_000_000;
}

function priceOf(prices: PriceTable, key: string): ModelPrice | undefined {
  return Object.hasOwn(prices, key) ? prices[key] : undefined;
}

/** A route step as cost accounting sees it. */
interface PricedStep {
  readonly provider: string;
  readonly model: string;
}

/**
 * The step of `steps` whose model an answer's body names (`gpt-4o-mini`, `openai/gpt-4o-mini` or
 * a dated snapshot), when exactly one does: for a dynamic route's answer without served-step headers.
 */
export function stepNamedBy<Step extends PricedStep>(
  steps: readonly Step[],
  responseModel: string,
): Step | undefined {
  const matches = steps.filter(
    ({ provider, model }) =>
      responseModel === `${provider}/${model}` || withoutSnapshot(responseModel) === model,
  );
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * The cost of an answer `step` served: priced by the step's model, else by the model the answer
 * names; `null` when the table prices neither.
 */
export function answerCost(
  prices: PriceTable,
  step: PricedStep,
  responseModel: string,
  usage: TokenUsage,
): number | null {
  return (
    computeCost(prices, step.provider, step.model, usage) ??
    computeCost(prices, step.provider, responseModel, usage) ??
    null
  );
}
