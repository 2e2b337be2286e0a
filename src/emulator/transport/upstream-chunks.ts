/**
 * @module
 * An upstream stream's chunks as an async iterator fed by `data` events: each chunk is handed
 * to a waiting reader in the turn it arrives, and the response is paused while chunks wait
 * unread, so the upstream is read no faster than the client takes the answer. Node's own
 * `Readable` iterator goes through `readable` events and a `read()` loop, which cost about
 * 0.14 ms before the first token on the first-token benchmark (BENCHMARKS.md).
 *
 * A connection that closes before the answer's end rejects the pending read (a cut stream);
 * `return()` (the reader stopping early) destroys the response, releasing the upstream.
 */
import type { IncomingMessage } from "node:http";

interface Waiter {
  readonly resolve: (result: IteratorResult<Buffer>) => void;
  readonly reject: (error: unknown) => void;
}

export class UpstreamChunks implements AsyncIterator<Buffer> {
  readonly #response: IncomingMessage;
  readonly #queue: Buffer[] = [];
  #waiter: Waiter | undefined;
  #ended = false;
  #error: unknown;

  constructor(response: IncomingMessage) {
    this.#response = response;
    response.on("data", (chunk: Buffer) => this.#take(chunk));
    response.on("end", () => this.#end());
    response.on("error", (error) => this.#fail(error));
    response.on("close", () => {
      if (!response.complete)
        this.#fail(new Error("the upstream closed the connection mid-answer"));
    });
  }

  next(): Promise<IteratorResult<Buffer>> {
    const chunk = this.#queue.shift();
    if (chunk !== undefined) {
      if (this.#queue.length === 0 && !this.#ended) this.#response.resume();
      return Promise.resolve({ done: false, value: chunk });
    }
    if (this.#error !== undefined) return Promise.reject(this.#error);
    if (this.#ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<Buffer>> {
    if (!this.#ended) this.#response.destroy();
    this.#ended = true;
    this.#queue.length = 0;
    return Promise.resolve({ done: true, value: undefined });
  }

  #take(chunk: Buffer): void {
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter.resolve({ done: false, value: chunk });
      return;
    }
    this.#queue.push(chunk);
    this.#response.pause();
  }

  #end(): void {
    this.#ended = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve({ done: true, value: undefined });
  }

  #fail(error: unknown): void {
    if (this.#ended || this.#error !== undefined) return;
    this.#error = error;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.reject(error);
  }
}
