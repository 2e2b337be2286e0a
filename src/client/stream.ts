/**
 * @module
 * `client.stream`: a {@link ChatStream} at once, with nothing sent yet. The first iteration (or
 * `collect()`) loads the code that reads streams (`stream-reader.ts`: the SSE parser, each
 * provider's stream format, the queue of deltas) and starts the call, so an app that never streams
 * does not carry that code. `result` settles once the stream has been read to its end.
 */

import { createCall } from "./call.ts";
import type { ClientState } from "./client.ts";
import { readerModule } from "./lazy-modules.ts";
import type { ChatDelta, ChatOptions, ChatResponse, ChatStream } from "./types.ts";

/** A started stream, as `stream-reader.ts` runs it. */
export interface OpenStream {
  readonly deltas: AsyncIterator<ChatDelta>;
  readonly result: Promise<ChatResponse>;
  cancel(): void;
}

/** Starts `client.stream`; see the module description. */
export function startStream(state: ClientState, options: ChatOptions): ChatStream {
  let open: Promise<OpenStream> | undefined;
  let cancelled = false;
  let settle!: (outcome: Promise<ChatResponse>) => void;
  const result = new Promise<ChatResponse>((resolve) => {
    settle = resolve;
  });
  result.catch(() => undefined);
  const begin = (collect: boolean) => {
    if (open !== undefined) throw new TypeError("A ChatStream is read once; then use its result.");
    open = readerModule
      .load()
      .then(({ openStream }) => openStream(state, options, createCall, collect, () => cancelled));
    settle(open.then((stream) => stream.result));
    return open;
  };
  return {
    result,
    [Symbol.asyncIterator]() {
      const stream = begin(false);
      return {
        next: async () => (await stream).deltas.next(),
        return: async () => (await stream).deltas.return!(),
      };
    },
    collect() {
      if (open === undefined) begin(true);
      return result;
    },
    cancel() {
      cancelled = true;
      open?.then((stream) => stream.cancel());
    },
  };
}
