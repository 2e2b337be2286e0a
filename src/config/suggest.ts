/**
 * @module
 * "Did you mean …?": the closest of a list of names to what was written, by edit distance, and
 * the field names a zod schema accepts at a path (so an unknown field is compared with the
 * fields that exist right there, not with every name of the config).
 */
import type { z } from "zod";

/**
 * Edits (insert, delete, substitute, swap two neighbours) between two strings: the optimal
 * string alignment distance. `editDistance("gorq", "groq")` is 1.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  for (let row = 1; row < rows; row++) {
    for (let column = 1; column < columns; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let best = Math.min(
        table[row - 1]![column]! + 1,
        table[row]![column - 1]! + 1,
        table[row - 1]![column - 1]! + cost,
      );
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1])
        best = Math.min(best, table[row - 2]![column - 2]! + 1);
      table[row]![column] = best;
    }
  }
  return table[a.length]![b.length]!;
}

/**
 * The name closest to `value`, when it is close enough to be a slip: at most a third of the
 * name's length in edits (at least one, at most three), compared without case. `undefined` when
 * nothing is that close, or `value` is itself one of the names.
 */
export function closestName(value: string, names: Iterable<string>): string | undefined {
  const wanted = value.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    if (name === value) return undefined;
    const distance = editDistance(wanted, name.toLowerCase());
    const reach = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
    if (distance <= reach && (best === undefined || distance < best.distance))
      best = { name, distance };
  }
  return best?.name;
}

type Definition = {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly element?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly getter?: () => z.ZodType;
};

function definitionOf(schema: z.ZodType): Definition {
  return (schema as unknown as { _zod: { def: Definition } })._zod.def;
}

/** The schema itself, past optional, default, preprocess and similar wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    const definition = definitionOf(current);
    if (definition.innerType) current = definition.innerType;
    else if (definition.type === "pipe" && definition.in && definition.out)
      current = definitionOf(definition.in).type === "transform" ? definition.out : definition.in;
    else if (definition.type === "lazy" && definition.getter) current = definition.getter();
    else return current;
  }
  return current;
}

/** The schema of the value at `path`, or `undefined` when the schema has no such place. */
export function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const segment of path) {
    if (current === undefined) return undefined;
    current = childOf(unwrap(current), segment);
  }
  return current;
}

function childOf(schema: z.ZodType, segment: PropertyKey): z.ZodType | undefined {
  const definition = definitionOf(schema);
  switch (definition.type) {
    case "object":
      return definition.shape?.[String(segment)];
    case "array":
      return definition.element;
    case "record":
      return definition.valueType;
    case "union":
      for (const option of definition.options ?? []) {
        const child = childOf(unwrap(option), segment);
        if (child !== undefined) return child;
      }
      return undefined;
    default:
      return undefined;
  }
}

/** The field names an object schema accepts (none for anything else). */
export function schemaKeys(schema: z.ZodType | undefined): string[] {
  if (schema === undefined) return [];
  const unwrapped = unwrap(schema);
  const definition = definitionOf(unwrapped);
  if (definition.type === "object") return Object.keys(definition.shape ?? {});
  if (definition.type === "union")
    return [...new Set((definition.options ?? []).flatMap((option) => schemaKeys(option)))];
  return [];
}
