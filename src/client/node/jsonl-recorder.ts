/**
 * @module
 * A recorder that appends one JSON object per line to a file, the format `stepwise report` and
 * the analytics read. Node only (`node:fs`), so it is a separate entry the client core never
 * imports: `import { jsonLinesRecorder } from "stepwise-gateway/client/node"`.
 */

import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { CallEvent } from "../event.ts";
import type { BreakerTransition, Recorder } from "../types.ts";

/** Options for {@link jsonLinesRecorder}. */
export interface JsonLinesRecorderOptions {
  /** The events file; created (with its folder) on the first write. */
  readonly path: string;
  /** A second file for breaker transitions; transitions are not written when absent. */
  readonly transitionsPath?: string;
}

/** A recorder writing JSON lines; `flush()` waits until every line so far is on disk. */
export interface JsonLinesRecorder extends Recorder {
  flush(): Promise<void>;
}

/**
 * Appends each event as one JSON line. Writes happen in order, one at a time; a failed write
 * rejects that `record` call (which the client catches) and does not stop later writes.
 * @example
 * const recorder = jsonLinesRecorder({ path: ".stepwise/events.jsonl" });
 * const client = createGatewayClient({ accountId, gatewayId, routes, recorder });
 * // ... on shutdown:
 * await recorder.flush();
 */
export function jsonLinesRecorder(options: JsonLinesRecorderOptions): JsonLinesRecorder {
  let queue: Promise<void> = Promise.resolve();
  const preparedFolders = new Set<string>();

  const append = (path: string, value: CallEvent | BreakerTransition): Promise<void> => {
    const line = `${JSON.stringify(value)}\n`;
    const write = queue.then(async () => {
      const folder = dirname(path);
      if (!preparedFolders.has(folder)) {
        await mkdir(folder, { recursive: true });
        preparedFolders.add(folder);
      }
      await appendFile(path, line, "utf8");
    });
    queue = write.catch(() => undefined);
    return write;
  };

  const recorder: JsonLinesRecorder = {
    record: (event) => append(options.path, event),
    flush: () => queue,
  };
  const transitionsPath = options.transitionsPath;
  if (transitionsPath !== undefined) {
    recorder.breaker = (transition) => append(transitionsPath, transition);
  }
  return recorder;
}
