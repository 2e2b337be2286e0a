/**
 * @module
 * The routing policy of a route: named chains besides the route's own `steps`, and ordered rules
 * that pick one of them per request from its `cf-aig-metadata`, with an optional budget (request
 * count or cost per metadata key and window, over which a cheaper chain takes over) and an
 * optional percentage split. One policy compiles to Cloudflare's dynamic-route elements
 * (`src/routes/policy-compile.ts`) and is evaluated by the client for universal calls
 * (`src/routes/policy.ts`), with the same result for the same metadata.
 *
 * ```yaml
 * steps: [...]                    # the chain named "default": what no rule claims
 * chains:
 *   frontier: [...]
 *   economy: [...]
 * policy:
 *   - when: { plan: free }
 *     use: economy
 *   - when: { plan: pro, tier: complex }
 *     use: frontier
 *     budget: { per: plan, cost: 0.50, windowSeconds: 3600, over: default }
 *   - split: { economy: 10 }      # A/B: 10 % of the rest try the economy chain
 * ```
 *
 * Cross-field rules (names that exist, reachable rules, split totals) live in `policy-checks.ts`.
 */
import * as z from "zod";

/** The name `steps` goes by in a policy. */
export const defaultChainName = "default";

/** Most named chains per route, and most rules per policy (each rule is up to three elements). */
export const maxChains = 10;
export const maxRules = 20;
/** Cloudflare names at most 5 split outputs. */
export const maxSplitOutputs = 5;

export const chainNameSchema = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, {
  error:
    "chain names use lowercase letters, digits, - and _, start with a letter, at most 32 characters",
});

/** A record whose bad keys are reported with the key schema's own message, not zod's default. */
function namedRecord<Key extends z.ZodType<string>, Value extends z.ZodType>(
  key: Key,
  value: Value,
) {
  return z.record(key, value, {
    error: (issue) =>
      issue.code === "invalid_key"
        ? (issue.issues[0]?.message ?? "this name is not allowed here")
        : undefined,
  });
}

/** A `cf-aig-metadata` key, e.g. `plan`. */
export const metadataKeySchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, {
  error:
    "metadata keys use letters, digits, - and _ and start with a letter or _ (the key the app sends in cf-aig-metadata, e.g. plan)",
});

/** A `cf-aig-metadata` value: Cloudflare takes strings, numbers and booleans. */
export const metadataValueSchema = z.union([z.string(), z.number(), z.boolean()], {
  error: "a metadata value is a string, number or boolean",
});

/**
 * One key's test: a value (equal to it), a list (one of them), or `{ not: value | list }`.
 * Compiled to the operators Cloudflare documents: `$eq`, `$in`, `$ne` and `$and`.
 */
export const metadataTestSchema = z.union(
  [
    metadataValueSchema,
    z.array(metadataValueSchema).min(1, { error: "a list of values needs at least one value" }),
    z.strictObject({
      not: z.union([
        metadataValueSchema,
        z.array(metadataValueSchema).min(1, { error: "not: [] needs at least one value" }),
      ]),
    }),
  ],
  {
    error:
      "a condition is a value (plan: free), a list of values (tier: [moderate, complex]) or { not: value } (plan: { not: free })",
  },
);

/** Every key must hold for the rule to match. */
export const whenSchema = namedRecord(metadataKeySchema, metadataTestSchema).refine(
  (when) => Object.keys(when).length > 0,
  {
    error:
      "when needs at least one metadata key, e.g. when: { plan: free }; leave it out to match every request",
  },
);

export const budgetSchema = z
  .strictObject({
    /** The metadata key budgets are counted per, e.g. `user_id` (one budget per user). */
    per: metadataKeySchema,
    /** Requests per window. */
    requests: z
      .int({ error: "budget.requests is a whole number of requests" })
      .min(1, { error: "budget.requests must be at least 1" })
      .optional(),
    /** USD per window, priced from `stepwise:models`. */
    cost: z.number().positive({ error: "budget.cost is in USD and must be above 0" }).optional(),
    windowSeconds: z
      .int({ error: "budget.windowSeconds is a whole number of seconds" })
      .min(1, { error: "budget.windowSeconds must be at least 1" })
      .max(2_592_000, { error: "budget.windowSeconds must be at most 2592000 (30 days)" }),
    /** The chain requests take once the budget is spent. */
    over: chainNameSchema,
  })
  .refine((budget) => (budget.requests === undefined) !== (budget.cost === undefined), {
    error:
      "a budget counts either requests or cost: give exactly one of budget.requests (a count) or budget.cost (USD)",
  });

/** Chain → whole percent of the rule's requests; the rest take the rule's `use`. */
export const splitSchema = namedRecord(
  chainNameSchema,
  z
    .int({ error: "a split share is a whole percent, e.g. 10" })
    .min(1, { error: "a split share is at least 1 (percent)" })
    .max(100, { error: "a split share is at most 100 (percent)" }),
)
  .refine((split) => Object.keys(split).length > 0, {
    error: "split needs at least one chain and its percent, e.g. split: { candidate: 10 }",
  })
  .refine((split) => Object.keys(split).length <= maxSplitOutputs, {
    error: `a split sends to at most ${maxSplitOutputs} chains (Cloudflare's limit per percentage element)`,
  });

export const policyRuleSchema = z.strictObject({
  /** Metadata the request must carry; absent: every request reaching this rule. */
  when: whenSchema.optional(),
  /** The chain the rule sends to (`default` is the route's `steps`). Default: `default`. */
  use: chainNameSchema.optional(),
  /** Percent of the rule's requests sent to other chains; the rest take `use`. */
  split: splitSchema.optional(),
  /** A budget the rule's requests spend; over it they take `budget.over`. */
  budget: budgetSchema.optional(),
});

/** Named chains: ordered steps, like `steps`. */
export const chainsSchema = <Step extends z.ZodType>(stepSchema: Step) =>
  namedRecord(
    chainNameSchema,
    z.array(stepSchema).min(1, { error: "a chain needs at least one step" }),
  )
    .refine((chains) => !Object.hasOwn(chains, defaultChainName), {
      error: `"${defaultChainName}" names the route's steps; give this chain another name`,
    })
    .refine((chains) => Object.keys(chains).length <= maxChains, {
      error: `at most ${maxChains} chains per route`,
    });

export const policySchema = z
  .array(policyRuleSchema)
  .min(1, { error: "a policy needs at least one rule; remove policy to send every call to steps" })
  .max(maxRules, { error: `at most ${maxRules} rules per policy` });

export type MetadataValue = z.infer<typeof metadataValueSchema>;
export type MetadataTest = z.infer<typeof metadataTestSchema>;
export type PolicyWhen = z.infer<typeof whenSchema>;
export type PolicyBudget = z.infer<typeof budgetSchema>;
export type PolicySplit = z.infer<typeof splitSchema>;
export type PolicyRule = z.infer<typeof policyRuleSchema>;
