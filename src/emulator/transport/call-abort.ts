/**
 * @module
 * A request's abort signal without `AbortController`: the client going away or the emulator
 * closing sets `aborted` and calls the `abort` listeners once, which is all the emulator asks of
 * it (attempts listen; steps check `aborted`). Node's `AbortController` builds an `EventTarget`
 * per request, and adding and removing a listener on it parses options and walks its event
 * machinery: about 4 µs of CPU per request on the benchmark machine, most of what a universal
 * request spends outside `node:http` on aborting (see BENCHMARKS.md). A real `AbortSignal` fits
 * the same interface, so transports and tests may still be handed one.
 */

/** What an upstream attempt and a step see of their request's abort. */
export interface CallSignal {
  readonly aborted: boolean;
  addEventListener(
    type: "abort",
    listener: EventListenerOrEventListenerObject,
    options?: AddEventListenerOptions,
  ): void;
  removeEventListener(type: "abort", listener: EventListenerOrEventListenerObject): void;
}

/** A request's abort: the signal, and `abort()` for the emulator (client gone, closing). */
export class CallAbort implements CallSignal {
  #aborted = false;
  /** Usually none or one (the attempt in flight). */
  #listeners: EventListenerOrEventListenerObject[] = [];

  get aborted(): boolean {
    return this.#aborted;
  }

  /** The signal side (the object itself; named so call sites read like `controller.signal`). */
  get signal(): CallSignal {
    return this;
  }

  /** Listeners are called once, on abort, like `{ once: true }` ones; a listener added twice counts once. */
  addEventListener(_type: "abort", listener: EventListenerOrEventListenerObject): void {
    if (this.#aborted || this.#listeners.includes(listener)) return;
    this.#listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: EventListenerOrEventListenerObject): void {
    const index = this.#listeners.indexOf(listener);
    if (index !== -1) this.#listeners.splice(index, 1);
  }

  /** Aborts once; later calls do nothing. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    if (listeners.length === 0) return;
    const event = new Event("abort");
    for (const listener of listeners) {
      if (typeof listener === "function") listener(event);
      else listener.handleEvent(event);
    }
  }
}
