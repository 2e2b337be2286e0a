/**
 * @module
 * A price in `models` that no route uses, one or two edits away from a model a route uses that
 * has no price: a typo, on one side or the other, that would make every call of that model cost
 * $0 in the step-rate report. Reported at the price with the name it was probably meant to be.
 */
import { providerSlugSchema } from "./schema.ts";
import { closestName } from "./suggest.ts";

type Issue = { message: string; path: PropertyKey[] };

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/**
 * The `provider/model` of every step with a real provider, in a route's steps or in one of its
 * policy's chains; raw input or parsed.
 */
function usedModels(config: Record<string, unknown>): Set<string> {
  const used = new Set<string>();
  for (const gateway of Array.isArray(config.gateways) ? config.gateways : []) {
    for (const route of Object.values(asObject(asObject(gateway).routes))) {
      const steps = Array.isArray(route) ? route : asObject(route).steps;
      const chains = Array.isArray(route) ? [] : Object.values(asObject(asObject(route).chains));
      for (const step of [steps, ...chains].flatMap((list) => (Array.isArray(list) ? list : []))) {
        const { provider, model } = asObject(step);
        // A step whose provider does not exist is reported as such; its price is no clue.
        if (typeof model === "string" && providerSlugSchema.safeParse(provider).success)
          used.add(`${provider}/${model}`);
      }
    }
  }
  return used;
}

/** Price keys that look like a typo of a used, unpriced model; each with the likely name. */
export function findPriceTypos(input: unknown): Issue[] {
  const config = asObject(input);
  const prices = Object.keys(asObject(config.models));
  const used = usedModels(config);
  const unpriced = [...used].filter((model) => !prices.includes(model));
  return prices
    .filter((price) => !used.has(price))
    .flatMap((price) => {
      const meant = closestName(price, unpriced);
      return meant === undefined
        ? []
        : [
            {
              path: ["models", price],
              message: `no route uses ${price}, and ${meant}, which a route uses, has no price: did you mean "${meant}"? (Or is the route's model the typo?) Calls of an unpriced model cost $0 in reports.`,
            },
          ];
    });
}
