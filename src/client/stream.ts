/**
 * @module
 * `client.stream`: a {@link ChatStream} at once, with nothing sent yet. The first iteration (or
 * `collect()`) loads the stream reader (`on-demand/`: the SSE parser, each provider's stream
 * format), so an app that never streams does not carry it, and runs the call (`call.ts`) with
 * it; the deltas wait in a queue until the caller takes them. `result` settles once the stream
 * has been read to its end.
 */

import { GatewayCall } from "./call.ts";
import { AbortedError } from "./call-errors.ts";
import type { ClientState } from "./call-state.ts";
import { loadStreamReader } from "./on-demand/index.ts";
import type { ChatDelta, ChatOptions, ChatResponse, ChatStream } from "./types.ts";

const noop = () => undefined;

/** A started stream: its deltas, its result, and how to stop it. */
interface OpenStream {
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
  result.catch(noop);
  const begin = (collect: boolean) => {
    if (open !== undefined) throw new TypeError("A ChatStream is read once; then use its result.");
    open = loadStreamReader().then((reader) =>
      openStream(state, options, reader.createStreamer, collect, cancelled),
    );
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

/**
 * Runs a streamed call and queues its deltas until the caller takes them; `collect` drops them
 * (the result has the text). A caller that stops iterating early ends the call.
 */
function openStream(
  state: ClientState,
  options: ChatOptions,
  createStreamer: Awaited<ReturnType<typeof loadStreamReader>>["createStreamer"],
  collect: boolean,
  cancelled: boolean,
): OpenStream {
  const queue: ChatDelta[] = [];
  let wake: () => void = noop;
  let ended = false;
  const streamer = createStreamer(state.options, (delta) => {
    if (collect) return;
    queue.push(delta);
    wake();
  });
  const call = new GatewayCall(state, options, streamer);
  const cancel = () => call.halt(new AbortedError());
  if (cancelled) cancel();
  const result = call.run().finally(() => {
    ended = true;
    wake();
  });
  result.catch(noop);
  return {
    result,
    cancel,
    deltas: {
      async next() {
        for (;;) {
          const delta = queue.shift();
          if (delta !== undefined) return { done: false, value: delta };
          if (ended) {
            await result;
            return { done: true, value: undefined };
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      },
      async return() {
        if (!ended) cancel();
        return { done: true, value: undefined };
      },
    },
  };
}
