/**
 * @module
 * The routing-policy fields of a call event, read both ways the event schema reads a record: a
 * call's `metadata` (what it sent in `cf-aig-metadata`: at most 16 entries of text, a finite number
 * or a boolean, names and texts of at most 256 characters) and its `policy` decision (`chain`, the
 * deciding `rule` or null, and `budget` `within` or `over` when the rule has one). The plain-code
 * reader and the zod schemas accept exactly the same records.
 */
import type { z as Zod } from "zod";
import type { CallEvent, PolicyOutcome } from "../client/event.ts";

/** Most metadata entries kept on an event (the gateway keeps 5; a little room for other sources). */
export const maxMetadataEntries = 16;
const maxText = 256;
const maxRule = 999;

/** The zod schemas of the two fields, for the event schema. */
export function policyFieldSchemas(z: typeof Zod) {
  const text = z.string().max(maxText);
  return {
    metadata: z
      .record(text, z.union([text, z.number().finite(), z.boolean()]))
      .refine((entries) => Object.keys(entries).length <= maxMetadataEntries, {
        message: `metadata has at most ${maxMetadataEntries} entries`,
      })
      .optional(),
    policy: z
      .strictObject({
        chain: text.min(1),
        rule: z.number().int().nonnegative().max(maxRule).nullable(),
        budget: z.enum(["within", "over"]).optional(),
      })
      .optional(),
  };
}

/**
 * Reads `metadata` and `policy` off a record onto `event`; false when either is present and not
 * valid (the record is then not an event).
 */
export function readPolicyFields(record: Record<string, unknown>, event: CallEvent): boolean {
  const { metadata, policy } = record;
  if (metadata !== undefined) {
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return false;
    const entries = Object.entries(metadata);
    if (entries.length > maxMetadataEntries) return false;
    for (const [key, value] of entries) {
      if (key.length > maxText) return false;
      const valid =
        (typeof value === "string" && value.length <= maxText) ||
        (typeof value === "number" && Number.isFinite(value)) ||
        typeof value === "boolean";
      if (!valid) return false;
    }
    event.metadata = Object.fromEntries(entries) as Record<string, string | number | boolean>;
  }
  if (policy !== undefined) {
    if (typeof policy !== "object" || policy === null || Array.isArray(policy)) return false;
    const { chain, rule, budget, ...rest } = policy as Record<string, unknown>;
    if (Object.keys(rest).length > 0) return false;
    if (typeof chain !== "string" || chain === "" || chain.length > maxText) return false;
    const validRule =
      rule === null ||
      (typeof rule === "number" && Number.isInteger(rule) && rule >= 0 && rule <= maxRule);
    if (!validRule) return false;
    if (budget !== undefined && budget !== "within" && budget !== "over") return false;
    const outcome: PolicyOutcome = { chain, rule: rule as number | null };
    if (budget !== undefined) outcome.budget = budget;
    event.policy = outcome;
  }
  return true;
}
