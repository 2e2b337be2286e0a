/**
 * @module
 * Durable Object doubles for the Worker tests, so the ledger and the limiters run with the test's
 * clock and the KV double (the runtime's own objects take neither). What they keep of the real
 * thing: storage that copies values in and out (structured clone) and lists in key order; RPC
 * stubs that copy arguments and answers and never answer synchronously; one alarm per object,
 * which fires when the test's clock passes it. The real classes (`KeyLedger`, `AppLimiter`) are
 * thin shells around the same cores; test/worker/durable-objects.test.ts runs them in workerd.
 */
import type { DurableObjectNamespaceLike } from "../../src/worker/bindings.ts";
import type { LedgerStorage } from "../../src/worker/ledger/ledger-storage.ts";

/** Durable Object storage in memory (the part the ledger uses). */
export class MemoryStorage implements LedgerStorage {
  readonly #values = new Map<string, unknown>();

  get<Value>(key: string): Promise<Value | undefined>;
  get<Value>(keys: string[]): Promise<Map<string, Value>>;
  async get<Value>(keyOrKeys: string | string[]): Promise<unknown> {
    if (typeof keyOrKeys === "string") return this.#read<Value>(keyOrKeys);
    if (keyOrKeys.length > 128) throw new Error("get() takes at most 128 keys");
    const found = new Map<string, Value>();
    for (const key of keyOrKeys) {
      const value = this.#read<Value>(key);
      if (value !== undefined) found.set(key, value);
    }
    return found;
  }

  async put(entries: Record<string, unknown>): Promise<void> {
    if (Object.keys(entries).length > 128) throw new Error("put() takes at most 128 entries");
    for (const [key, value] of Object.entries(entries)) {
      this.#values.set(key, structuredClone(value));
    }
  }

  async delete(keys: string[]): Promise<number> {
    if (keys.length > 128) throw new Error("delete() takes at most 128 keys");
    let deleted = 0;
    for (const key of keys) if (this.#values.delete(key)) deleted++;
    return deleted;
  }

  async list<Value>(options: { prefix: string }): Promise<Map<string, Value>> {
    const keys = [...this.#values.keys()].filter((key) => key.startsWith(options.prefix)).sort();
    return new Map(keys.map((key) => [key, this.#read<Value>(key)!]));
  }

  #read<Value>(key: string): Value | undefined {
    const value = this.#values.get(key);
    return value === undefined ? undefined : (structuredClone(value) as Value);
  }
}

/** One object's alarm, fired by the test's clock. */
export class TestAlarm {
  #at: number | undefined;

  /** What the object passes as `wakeAt`: like `storage.setAlarm`, it replaces any earlier one. */
  readonly set = async (at: number): Promise<void> => {
    this.#at = at;
  };

  /** Runs `handler` while the alarm is due at `now`. */
  async fireDue(now: number, handler: () => Promise<void>): Promise<boolean> {
    let fired = false;
    while (this.#at !== undefined && this.#at <= now) {
      this.#at = undefined;
      fired = true;
      await handler();
    }
    return fired;
  }

  get scheduledAt(): number | undefined {
    return this.#at;
  }
}

/**
 * A namespace whose objects are made by `create` (once per name) and reached through stubs that
 * behave like RPC: arguments and answers are copied, and every answer comes asynchronously.
 */
export function namespaceOf<Api extends object>(
  create: (name: string) => Api,
): DurableObjectNamespaceLike<Api> & { readonly objects: Map<string, Api> } {
  const objects = new Map<string, Api>();
  const stubs = new Map<string, Api>();
  return {
    objects,
    idFromName: (name: string) => name,
    get(id: unknown): Api {
      const name = String(id);
      let stub = stubs.get(name);
      if (stub === undefined) {
        const object = create(name);
        objects.set(name, object);
        stub = rpcStub(object);
        stubs.set(name, stub);
      }
      return stub;
    },
  };
}

function rpcStub<Api extends object>(object: Api): Api {
  return new Proxy(object, {
    get(target, property) {
      const member = Reflect.get(target, property, target);
      if (typeof member !== "function") return member;
      return async (...args: unknown[]) => {
        await Promise.resolve();
        const answer = await member.apply(target, structuredClone(args));
        return structuredClone(answer);
      };
    },
  });
}
