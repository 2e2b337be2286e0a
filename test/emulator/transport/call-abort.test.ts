import { describe, expect, it } from "vitest";
import { CallAbort, type CallSignal } from "../../../src/emulator/transport/call-abort.ts";

describe("CallAbort", () => {
  it("calls each listener once on abort, functions and handleEvent objects alike", () => {
    const abort = new CallAbort();
    const calls: string[] = [];
    const handler = { handleEvent: (event: Event) => calls.push(`object ${event.type}`) };
    const listener = (event: Event) => calls.push(`function ${event.type}`);
    abort.signal.addEventListener("abort", handler, { once: true });
    abort.signal.addEventListener("abort", listener);
    abort.signal.addEventListener("abort", listener);
    expect(abort.signal.aborted).toBe(false);
    abort.abort();
    abort.abort();
    expect(abort.signal.aborted).toBe(true);
    expect(calls).toEqual(["object abort", "function abort"]);
  });

  it("does not call a removed listener, nor one added after the abort", () => {
    const abort = new CallAbort();
    const calls: string[] = [];
    const removed = () => calls.push("removed");
    abort.signal.addEventListener("abort", removed);
    abort.signal.removeEventListener("abort", removed);
    abort.abort();
    abort.signal.addEventListener("abort", () => calls.push("late"));
    expect(calls).toEqual([]);
  });

  it("has the shape of an AbortSignal's abort side, so a real one can stand in", () => {
    const real: CallSignal = new AbortController().signal;
    expect(real.aborted).toBe(false);
  });
});
