/**
 * @module
 * Everything a benchmark starts (servers, child processes, temporary files) is registered here
 * and stopped in reverse order at the end, whether the benchmark passed or threw.
 */

/** A stack of things to stop. */
export interface Cleanup {
  /** Registers a stop function; returns the value it was given, for chaining. */
  add<T>(value: T, stop: (value: T) => Promise<void> | void): T;
  /** Stops everything registered, last first; collects errors and throws the first one. */
  run(): Promise<void>;
}

/** A new, empty cleanup stack. */
export function createCleanup(): Cleanup {
  const stops: (() => Promise<void> | void)[] = [];
  return {
    add(value, stop) {
      stops.push(() => stop(value));
      return value;
    },
    async run() {
      const errors: unknown[] = [];
      while (stops.length > 0) {
        try {
          await stops.pop()!();
        } catch (error) {
          errors.push(error);
        }
      }
      if (errors.length > 0) throw errors[0];
    },
  };
}

/** Runs `body` with a fresh cleanup stack and always runs the stack afterwards. */
export async function withCleanup<T>(body: (cleanup: Cleanup) => Promise<T>): Promise<T> {
  const cleanup = createCleanup();
  try {
    return await body(cleanup);
  } finally {
    await cleanup.run();
  }
}
