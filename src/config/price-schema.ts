/**
 * @module
 * The schema of the price table (`models`): `provider/model` keys, prices per million tokens and
 * retirement notes. Part of the one config schema (`schema.ts`).
 */
import * as z from "zod";

/** A price table key: `"<provider>/<model>"`. */
export const modelKeySchema = z.string().regex(/^[a-z0-9-]+\/.+$/, {
  error: 'model keys are "<provider>/<model>", e.g. openai/gpt-4o-mini',
});

/**
 * The day a provider retires a model, `YYYY-MM-DD` (UTC). A date-time (what some YAML readers
 * make of an unquoted date) is taken as its day.
 */
export const retirementDateSchema = z.preprocess(
  (value) => (value instanceof Date ? value.toISOString() : value),
  z
    .string({ error: 'retires.date is a day, e.g. "2026-07-14" (quote it)' })
    .transform((text) => text.slice(0, 10))
    .pipe(z.iso.date({ error: 'retires.date is a day, e.g. "2026-07-14" (quote it)' })),
);

export const priceSchema = z.strictObject({
  input: z.number().min(0, { error: "price per million input tokens must be 0 or more" }),
  output: z.number().min(0, { error: "price per million output tokens must be 0 or more" }),
  /**
   * When the provider retires this model and what replaces it: `stepwise validate` warns about
   * every step using it before the date and fails after it, naming the replacement.
   */
  retires: z
    .strictObject({
      date: retirementDateSchema,
      /** The `provider/model` to use instead. */
      replacement: modelKeySchema,
    })
    .optional(),
});
