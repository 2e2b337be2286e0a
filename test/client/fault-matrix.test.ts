/**
 * Every fault kind the mock providers have, plain and streamed, through the client and the
 * emulator (the cases `npm run bench -- --only fault-matrix` tabulates): each call returns the
 * full answer (from a later step, or from the primary when the fault only slowed it or does not
 * apply), or, for a content-policy refusal, the provider's refusal with no other provider tried;
 * never a truncated answer as a success, and never a call left running past its deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectedOutcome,
  type FaultMatrix,
  matrixCases,
  startFaultMatrix,
} from "../../tools/bench/fault-matrix.ts";

let matrix: FaultMatrix;
beforeAll(async () => {
  matrix = await startFaultMatrix();
});
afterAll(() => matrix.close());

const cases = matrixCases().map((testCase) => ({
  ...testCase,
  label: `${testCase.name} (${testCase.stream ? "streamed" : "plain"})`,
}));

describe("each fault kind through the client and the emulator", () => {
  it.each(cases.filter((testCase) => testCase.route === "default"))("$label", async (testCase) => {
    const result = await matrix.run(testCase);
    const expected = expectedOutcome(testCase);
    expect(result.outcome, result.detail).toBe(expected.outcome);
    if (expected.outcome === "clean error") {
      // A content-policy refusal ends the call: no other provider is asked.
      expect(result.detail).toMatch(/^api_call_error: .*HTTP 400/);
      expect(result.providersTried).toEqual(["anthropic"]);
      return;
    }
    expect(result.detail).toMatch(/\[end\]$/);
    if (expected.step === 0) {
      expect(result.step).toBe(0);
      expect(result.restarts).toBe(0);
    } else {
      expect(result.step).toBeGreaterThan(0);
      expect(result.detail).toMatch(/^Mock answer from openai /);
    }
  });
});

describe("the continue policy through the emulator", () => {
  it("continues the text shown on the next step that takes a prefill", async () => {
    const result = await matrix.run(cases.find((c) => c.name === "stream-cut, continue policy")!);
    expect(result).toMatchObject({ outcome: "rescued", step: 1, restarts: 1 });
    // Nothing shown is dropped (at most trailing whitespace): Anthropic went on from the text
    // OpenAI's cut stream had shown, and the answer is that text plus the continuation.
    expect(result.discardedChars).toBeLessThanOrEqual(1);
    expect(result.detail).toMatch(/^Mock answer from openai .*\[end\]$/);
    expect(result.detail).not.toContain("anthropic");
  });

  it("restarts on that step without a prefill when it refuses one, and the caller never sees the refusal", async () => {
    const result = await matrix.run(
      cases.find((c) => c.name === "stream-cut, continue policy, prefill-refused")!,
    );
    expect(result).toMatchObject({ outcome: "rescued", step: 1, restarts: 1 });
    expect(result.discardedChars).toBeGreaterThan(1);
    expect(result.detail).toBe(
      "Mock answer from anthropic model claude-sonnet-4-5: the emulated provider is healthy. [end]",
    );
  });
});
