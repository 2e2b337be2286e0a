/**
 * @module
 * A policy rule's `when` two ways: as the MongoDB-style `conditions` of a Cloudflare conditional
 * element, using only the operators Cloudflare documents (`$eq`, `$in`, `$ne`, `$and`), and as a
 * plain test of a request's metadata for the client's universal path. Both read a missing key the
 * way MongoDB does: it equals nothing, is in no list, and differs from every value.
 *
 * Keys are taken in sorted order, so the same `when` compiles to the same JSON whichever order a
 * YAML or Pulumi reader kept them in.
 */
import type { MetadataTest, MetadataValue, PolicyWhen } from "../config/policy-schema.ts";

/** Request metadata as the client sends it in `cf-aig-metadata`. */
export type RequestMetadata = Readonly<Record<string, MetadataValue>>;

type Clause = Record<string, Record<string, unknown>>;

/**
 * `{ plan: free, tier: [moderate, complex] }` →
 * `{"$and":[{"metadata.plan":{"$eq":"free"}},{"metadata.tier":{"$in":["moderate","complex"]}}]}`.
 */
export function whenConditions(when: PolicyWhen): Record<string, unknown> {
  const clauses = sortedEntries(when).flatMap(([key, test]) => clausesOf(key, test));
  return clauses.length === 1 ? clauses[0]! : { $and: clauses };
}

/** Whether metadata satisfies every key of a `when`. */
export function matchesWhen(when: PolicyWhen, metadata: RequestMetadata): boolean {
  return sortedEntries(when).every(([key, test]) => {
    const actual = Object.hasOwn(metadata, key) ? metadata[key] : undefined;
    if (Array.isArray(test)) return test.some((value) => value === actual);
    if (typeof test === "object" && test !== null) {
      const excluded = Array.isArray(test.not) ? test.not : [test.not];
      return excluded.every((value) => value !== actual);
    }
    return actual === test;
  });
}

/** The metadata keys a `when` reads. */
export function whenKeys(when: PolicyWhen): string[] {
  return Object.keys(when).sort();
}

function clausesOf(key: string, test: MetadataTest): Clause[] {
  const field = `metadata.${key}`;
  if (Array.isArray(test)) return [{ [field]: { $in: [...test] } }];
  if (typeof test === "object" && test !== null) {
    const excluded = Array.isArray(test.not) ? test.not : [test.not];
    return excluded.map((value) => ({ [field]: { $ne: value } }));
  }
  return [{ [field]: { $eq: test } }];
}

function sortedEntries(when: PolicyWhen): [string, MetadataTest][] {
  return Object.entries(when).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
