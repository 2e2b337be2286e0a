/**
 * @module
 * Lists every key under a prefix, following KV's cursors (a page may be empty and still not be
 * the last one).
 */
import type { KvListKey, KvNamespaceLike } from "./bindings.ts";

/** Every key under `prefix`, in KV's lexicographic order. */
export async function listAll<Metadata>(
  kv: KvNamespaceLike,
  prefix: string,
): Promise<KvListKey<Metadata>[]> {
  const keys: KvListKey<Metadata>[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await kv.list<Metadata>(cursor === undefined ? { prefix } : { prefix, cursor });
    keys.push(...page.keys);
    if (page.list_complete) return keys;
    cursor = page.cursor;
  }
}
