/**
 * @module
 * `salvageConfig`: the valid part of an invalid config, so the checks that need a parsed config
 * (dynamic routes, model retirement, the Worker view, deploy secrets) still run when some field
 * is wrong, and one run of `stepwise validate` reports every problem. Each field zod rejects is
 * taken out (a bad step, an unknown field, a bad gateway setting, which then takes its default);
 * when taking it out leaves a required field missing, its parent goes instead. List items that are
 * taken out leave no gap in the paths: `toOriginal` maps a path of the salvaged config back to
 * the input's, so a finding about the salvaged config points at the right line of the file.
 */
import type { z } from "zod";
import { configShapeSchema, type StepwiseConfig } from "./schema.ts";

/** The valid part of a config, and how its paths map back to the input's. */
export interface SalvagedConfig {
  readonly config: StepwiseConfig;
  /** A path in `config` → the same field's path in the input. */
  readonly toOriginal: (path: readonly PropertyKey[]) => PropertyKey[];
}

/** Marks a list item taken out, so the items after it keep their input index. */
const removed: unique symbol = Symbol("removed");

/** Placeholders for required top-level fields the checks never read. */
const placeholders: Readonly<Record<string, unknown>> = { accountId: "0".repeat(32) };

const maxRounds = 50;

/** `Chat_Prod` → `chat-prod`: a valid id standing in for a bad one. */
function placeholderGatewayId(id: unknown, index: number): string {
  const cleaned =
    typeof id === "string"
      ? id
          .toLowerCase()
          .replace(/[^a-z0-9-]+/g, "-")
          .slice(0, 64)
      : "";
  return /^[a-z0-9-]{1,64}$/.test(cleaned) ? cleaned : `gateway-${index}`;
}

/**
 * The config with every field zod rejects taken out, or undefined when nothing usable is left
 * (no valid gateway, or an input that is not an object).
 */
export function salvageConfig(input: unknown): SalvagedConfig | undefined {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined;
  const working = structuredClone(input) as Record<string, unknown>;
  const takenOut = new Set<string>();
  for (let round = 0; round < maxRounds; round++) {
    const compacted = compact(working);
    const result = configShapeSchema.safeParse(compacted);
    if (result.success) {
      return { config: result.data, toOriginal: (path) => toOriginal(working, path) };
    }
    let changed = false;
    for (const issue of result.error.issues) {
      for (const issuePath of issuePaths(issue)) {
        changed = takeOut(working, toOriginal(working, issuePath), takenOut) || changed;
      }
    }
    if (!changed) return undefined;
  }
  return undefined;
}

/** The paths an issue is about: each unknown key, or the issue's own path. */
function issuePaths(issue: z.core.$ZodIssue): PropertyKey[][] {
  const path = issue.path as PropertyKey[];
  if (issue.code === "unrecognized_keys") return issue.keys.map((key) => [...path, key]);
  return [path];
}

/**
 * Takes the value at `path` out of `root` (or the nearest ancestor not yet taken out). Returns
 * false when nothing more can go (the path is the root or a required top-level field).
 */
function takeOut(
  root: Record<string, unknown>,
  path: PropertyKey[],
  takenOut: Set<string>,
): boolean {
  let target = path;
  // A field taken out before and reported again (now missing) takes its parent with it.
  while (target.length > 0 && takenOut.has(JSON.stringify(target))) target = target.slice(0, -1);
  if (target.length === 0) return false;
  takenOut.add(JSON.stringify(target));
  const parent = valueAt(root, target.slice(0, -1));
  const last = target.at(-1)!;
  if (target.length === 1 && typeof last === "string" && last in placeholders) {
    root[last] = placeholders[last];
    return true;
  }
  if (target.length === 1 && last === "gateways") return false;
  // A gateway with a bad id keeps its routes checked, under an id made from the bad one.
  if (target.length === 3 && target[0] === "gateways" && last === "id") {
    (parent as Record<string, unknown>).id = placeholderGatewayId(
      (parent as Record<string, unknown>).id,
      target[1] as number,
    );
    return true;
  }
  if (Array.isArray(parent) && typeof last === "number") {
    if (parent[last] === removed) return false;
    parent[last] = removed;
    return true;
  }
  if (typeof parent === "object" && parent !== null && typeof last === "string") {
    if (!(last in parent)) return target.length > 1 && takeOut(root, target.slice(0, -1), takenOut);
    delete (parent as Record<string, unknown>)[last];
    return true;
  }
  // The path goes through something that is not a container (a wrapper name the schema adds):
  // take out the deepest container on it.
  return target.length > 1 && takeOut(root, target.slice(0, -1), takenOut);
}

/** The value at a path, passing over names on lists (a route written as its list of steps). */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const segment of path) {
    if (Array.isArray(node)) {
      if (typeof segment === "number") node = node[segment];
    } else if (typeof node === "object" && node !== null) {
      node = (node as Record<PropertyKey, unknown>)[segment];
    } else return undefined;
  }
  return node;
}

/** A copy without the items taken out. */
function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== removed).map(compact);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, compact(item)]));
  }
  return value;
}

/** A path in the compacted value → the same path in `root`, list indices counting taken-out items. */
function toOriginal(root: unknown, path: readonly PropertyKey[]): PropertyKey[] {
  const result: PropertyKey[] = [];
  let node = root;
  for (const segment of path) {
    if (Array.isArray(node) && typeof segment === "number") {
      let seen = -1;
      let index = -1;
      while (seen < segment && index < node.length) {
        index++;
        if (node[index] !== removed) seen++;
      }
      result.push(index);
      node = node[index];
    } else if (Array.isArray(node)) {
      result.push(segment);
    } else {
      result.push(segment);
      node =
        typeof node === "object" && node !== null
          ? (node as Record<PropertyKey, unknown>)[segment]
          : undefined;
    }
  }
  return result;
}
