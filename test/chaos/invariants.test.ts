import { describe, expect, it } from "vitest";
import {
  AttemptTally,
  checkAvailability,
  checkDeadlines,
  checkMemoryFlat,
  checkNoLeaks,
  checkRecordedOnce,
  checkRotations,
  checkStreamedLikePlain,
  checkUnhandledRejections,
  LeakScanner,
  type MemorySample,
  rotationSchedule,
  tapProcessOutput,
} from "../../src/chaos/index.ts";
import type { MockAttempt } from "../../src/emulator/mocks/index.ts";

const mib = 1024 * 1024;

describe("every call recorded exactly once", () => {
  it("holds when each call has one event", () => {
    const check = checkRecordedOnce(["a", "b", "c"], ["c", "a", "b"]);
    expect(check.ok).toBe(true);
    expect(check.detail).toContain("3 calls, 3 events");
  });

  it("fails on a duplicated event, a missing one and one that belongs to no call", () => {
    const duplicated = checkRecordedOnce(["a", "b"], ["a", "b", "b"]);
    expect(duplicated.ok).toBe(false);
    expect(duplicated.detail).toContain("1 recorded twice");
    const missing = checkRecordedOnce(["a", "b"], ["a"]);
    expect(missing.ok).toBe(false);
    expect(missing.detail).toContain("1 missing");
    const unknown = checkRecordedOnce(["a"], ["a", "z"]);
    expect(unknown.ok).toBe(false);
    expect(unknown.detail).toContain("1 without a call");
  });
});

describe("no call runs past its deadline", () => {
  it("allows a call that ends at its deadline plus the tolerance", () => {
    const check = checkDeadlines(
      [
        { id: "a", deadlineMs: 1_000, latencyMs: 120 },
        { id: "b", deadlineMs: 1_000, latencyMs: 1_200 },
      ],
      250,
    );
    expect(check.ok).toBe(true);
    expect(check.detail).toContain("1 reached their deadline and ended at most 200 ms after it");
  });

  it("fails on a call that ran past its deadline and the tolerance", () => {
    const check = checkDeadlines([{ id: "a", deadlineMs: 1_000, latencyMs: 1_251 }], 250);
    expect(check.ok).toBe(false);
    expect(check.detail).toContain("1 of 1 over");
  });
});

describe("no rejection goes unhandled", () => {
  it("fails on any unhandled rejection", () => {
    expect(checkUnhandledRejections(0).ok).toBe(true);
    expect(checkUnhandledRejections(1)).toMatchObject({
      ok: false,
      detail: expect.stringContaining("1 unhandled rejection "),
    });
  });
});

describe("no key appears in any output", () => {
  const key = "sk-ant-0123456789abcdef";

  it("fails on a leaked key, naming its label and source but never the key", () => {
    const scanner = new LeakScanner([{ label: "anthropic key #1", value: key }]);
    scanner.scan("call events", '{"id":"a","ok":true}');
    scanner.scan("Worker log lines", `stepwise worker: forwarding with ${key}`);
    const check = checkNoLeaks(scanner);
    expect(check.ok).toBe(false);
    expect(check.detail).toContain("anthropic key #1 in Worker log lines");
    expect(check.detail).not.toContain(key);
  });

  it("finds keys added during the run (rotations) and says what it scanned", () => {
    const scanner = new LeakScanner();
    scanner.scan("stdout", "before the rotation");
    scanner.addSecret({ label: "openai key #2", value: "chaos-openai-2-aaaaaaaa" });
    scanner.scan("stdout", "after: chaos-openai-2-aaaaaaaa");
    expect(scanner.hits).toEqual([{ source: "stdout", label: "openai key #2" }]);
    const clean = new LeakScanner([{ label: "k", value: "chaos-openai-2-aaaaaaaa" }]);
    clean.scan("stdout", "nothing here");
    expect(checkNoLeaks(clean)).toMatchObject({
      ok: true,
      detail: "1 secrets searched in 1 stdout",
    });
  });

  it("sees what anything writes to stdout and stderr while tapped, and lets it through", () => {
    const scanner = new LeakScanner([{ label: "groq key #1", value: "gsk-0123456789" }]);
    const original = process.stderr.write;
    const passed: string[] = [];
    const sink = ((chunk: string | Uint8Array) => {
      passed.push(Buffer.from(chunk).toString("utf8"));
      return true;
    }) as typeof process.stderr.write;
    process.stderr.write = sink;
    try {
      const untap = tapProcessOutput((stream, text) => scanner.scan(stream, text));
      expect(process.stderr.write).not.toBe(sink);
      process.stderr.write("a line\n");
      process.stderr.write(Buffer.from("gsk-0123456789"));
      untap();
      expect(process.stderr.write).toBe(sink);
      process.stderr.write("after\n");
    } finally {
      process.stderr.write = original;
    }
    expect(passed).toEqual(["a line\n", "gsk-0123456789", "after\n"]);
    expect(scanner.hits).toEqual([{ source: "stderr", label: "groq key #1" }]);
    expect(scanner.coverage().get("stderr")?.items).toBe(2);
  });

  it("does not search for secrets too short to tell apart from ordinary text", () => {
    const scanner = new LeakScanner([{ label: "short", value: "abc" }]);
    scanner.scan("stdout", "abc abc");
    expect(scanner.hits).toHaveLength(0);
    expect(scanner.secretCount).toBe(0);
  });
});

function samples(heap: (index: number) => number, count = 30): MemorySample[] {
  return Array.from({ length: count }, (_, index) => ({
    atMs: index * 100,
    calls: index * 10,
    heapUsed: heap(index),
    rss: 200 * mib,
  }));
}

describe("memory stays flat", () => {
  it("holds when the heap wobbles around a level", () => {
    const check = checkMemoryFlat(samples((index) => (80 + (index % 3)) * mib));
    expect(check.ok).toBe(true);
    expect(check.detail).toMatch(/heap 8\d\.\d MiB → 8\d\.\d MiB/);
  });

  it("fails when the heap keeps growing", () => {
    const check = checkMemoryFlat(samples((index) => (80 + index * 2) * mib));
    expect(check.ok).toBe(false);
    // First-third median 94 MiB: 10 % of it (9.4 MiB) is more than the 8 MiB floor.
    expect(check.detail).toContain("+36.0 MiB, allowed +9.4 MiB");
  });

  it("leaves warm-up out: a rise at the start alone is not a leak", () => {
    const check = checkMemoryFlat(samples((index) => (index < 2 ? 40 : 80) * mib));
    expect(check.ok).toBe(true);
  });

  it("fails with too few samples to compare", () => {
    expect(checkMemoryFlat(samples(() => 80 * mib, 2)).ok).toBe(false);
  });
});

describe("key rotations never fail a call", () => {
  it("fails when a provider refused a key or a rotation did not go through", () => {
    const clean = {
      planned: 6,
      done: 6,
      failed: 0,
      refusedKeys: 0,
      callsRefusedForKey: 0,
      revoked: 6,
    };
    expect(checkRotations(clean).ok).toBe(true);
    expect(checkRotations({ ...clean, refusedKeys: 1, callsRefusedForKey: 1 }).ok).toBe(false);
    expect(checkRotations({ ...clean, done: 5, failed: 1 }).ok).toBe(false);
  });

  it("counts only refusals a call saw, not attempts that arrived after their call had ended", () => {
    // A starved machine: attempts reach the provider long after their calls gave up, carrying
    // keys revoked meanwhile. No call was refused, so no rotation failed one.
    const late = checkRotations({
      planned: 6,
      done: 6,
      failed: 0,
      refusedKeys: 278,
      callsRefusedForKey: 0,
      revoked: 6,
    });
    expect(late.ok).toBe(true);
    expect(late.detail).toContain(
      "0 calls refused for their key (278 more reached the provider after their call had ended)",
    );
  });

  it("spreads the rotations over the run, providers taking turns", () => {
    expect(rotationSchedule(["a", "b"], 2, 100)).toEqual([
      { at: 20, provider: "a" },
      { at: 40, provider: "b" },
      { at: 60, provider: "a" },
      { at: 80, provider: "b" },
    ]);
  });
});

describe("availability meets the theory", () => {
  it("allows the measure to fall short of the expectation by the tolerance only", () => {
    expect(checkAvailability(0.975, 0.98, 0.01).ok).toBe(true);
    expect(checkAvailability(0.965, 0.98, 0.01).ok).toBe(false);
  });
});

describe("streamed calls are as available as plain ones", () => {
  it("holds within half a point plus sampling noise, and fails beyond", () => {
    const plain = { answered: 2990, calls: 3000 };
    expect(checkStreamedLikePlain(plain, { answered: 995, calls: 1000 }, 0.005).ok).toBe(true);
    const check = checkStreamedLikePlain(plain, { answered: 980, calls: 1000 }, 0.005);
    expect(check.ok).toBe(false);
    expect(check.detail).toContain("streamed 98.00 % (1000 calls) vs plain 99.67 % (3000)");
    expect(check.detail).toContain("1.67 points below");
  });

  it("says so when streamed calls do better than plain ones", () => {
    const check = checkStreamedLikePlain(
      { answered: 2970, calls: 3000 },
      { answered: 996, calls: 1000 },
      0.005,
    );
    expect(check.ok).toBe(true);
    expect(check.detail).toContain("0.60 points above");
  });

  it("allows a few streamed calls more noise than thousands", () => {
    const plain = { answered: 297, calls: 300 };
    expect(checkStreamedLikePlain(plain, { answered: 49, calls: 50 }, 0.005).ok).toBe(true);
    expect(checkStreamedLikePlain(plain, { answered: 45, calls: 50 }, 0.005).ok).toBe(false);
  });
});

describe("attempt tally", () => {
  const attempt = (fields: Partial<MockAttempt>): MockAttempt => ({
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    path: "/v1/messages",
    receivedAt: 0,
    stream: false,
    status: 200,
    fault: null,
    auth: "valid",
    ...fields,
  });

  it("measures per-attempt rates by what each fault does, and counts refused keys", () => {
    const tally = new AttemptTally();
    tally.add([
      attempt({ fault: "unavailable", status: 503 }),
      attempt({}),
      attempt({ fault: "stream-cut" }),
      attempt({ fault: "context-length", status: 400 }),
      attempt({ stream: true, fault: "stream-cut" }),
      attempt({ stream: true }),
      attempt({ provider: "openai", auth: "revoked", status: 401 }),
    ]);
    const rates = tally.rates("anthropic");
    // Plain: a 503 and a cut body fail before answering; the 400 is a refusal.
    expect(rates.plainFails).toBe(2 / 4);
    expect(rates.streamBreaks).toBe(1 / 2);
    expect(rates.streamFails).toBe(0);
    expect(rates.fails).toBe(2 / 6);
    expect(rates.faulted).toBe(4 / 6);
    expect(tally.refusedKeys).toBe(1);
    expect([...tally.kindsInjected()].sort()).toEqual([
      "context-length",
      "stream-cut",
      "unavailable",
    ]);
  });
});
