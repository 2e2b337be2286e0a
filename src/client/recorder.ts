/**
 * @module
 * Two ready-made recorders. A {@link Recorder} (`types.ts`) receives exactly one
 * {@link CallEvent} per call, success or failure, and the circuit breaker's transitions (when the
 * client has a breaker); one that throws (or rejects) never breaks the call. `memoryRecorder` and
 * `callbackRecorder` are plain functions: a bundle that does not use them leaves them out. The
 * JSON-lines file recorder lives in `src/client/node/` because it needs `node:fs`.
 */

import type { CallEvent } from "./event.ts";
import type { BreakerTransition, Recorder } from "./types.ts";

/** A recorder that keeps everything in arrays, for tests and dashboards. */
export interface MemoryRecorder extends Recorder {
  readonly events: CallEvent[];
  readonly transitions: BreakerTransition[];
  /** Empties both arrays. */
  clear(): void;
}

/**
 * Keeps events and breaker transitions in memory.
 * @example
 * const recorder = memoryRecorder();
 * const client = createGatewayClient({ accountId, gatewayId, routes, recorder });
 * await client.chat({ route: "default", messages });
 * recorder.events[0]?.step; // 0
 */
export function memoryRecorder(): MemoryRecorder {
  const events: CallEvent[] = [];
  const transitions: BreakerTransition[] = [];
  return {
    events,
    transitions,
    record: (event) => {
      events.push(event);
    },
    breaker: (transition) => {
      transitions.push(transition);
    },
    clear: () => {
      events.length = 0;
      transitions.length = 0;
    },
  };
}

/**
 * Calls a function with each event (and, optionally, each breaker transition).
 * @example
 * const recorder = callbackRecorder((event) => metrics.increment(`step.${event.step}`));
 */
export function callbackRecorder(
  onEvent: (event: CallEvent) => void | Promise<void>,
  onTransition?: (transition: BreakerTransition) => void | Promise<void>,
): Recorder {
  return onTransition === undefined
    ? { record: onEvent }
    : { record: onEvent, breaker: onTransition };
}
