/**
 * @module
 * Mock LLM providers for the emulator and for tests: real HTTP servers on 127.0.0.1, one per
 * provider slug, speaking OpenAI, Anthropic, Workers AI or Gemini wire format, with
 * deterministic answers, key checks, a fault schedule and an attempt log.
 * @example
 * const mocks = await startMockProviders({
 *   providers: ["anthropic", "openai"],
 *   faults: { seed: 7, rules: [{ provider: "anthropic", kind: "overloaded", count: 2 }] },
 * });
 * // point the gateway's upstreams at mocks.urls, run it, then:
 * mocks.attempts.filter((attempt) => attempt.provider === "anthropic").length; // 3 with a retry
 * await mocks.close();
 */

export { adminPrefix } from "./admin.ts";
export { defaultSlowFirstByteMs } from "./apply-fault.ts";
export { answerEndMarker, canonicalAnswer, countTokens } from "./canonical-answer.ts";
export {
  FaultScheduleError,
  type FaultScheduleErrorCode,
  type FaultScheduleErrorOptions,
  type FaultScheduleIssue,
} from "./errors.ts";
export { faultFlagSyntax, faultScheduleFromFlags, parseFaultFlag } from "./fault-flag.ts";
export {
  defaultFaultSeed,
  FaultPicker,
  type FaultSide,
  type FaultTarget,
  gatewayKinds,
  streamOnlyKinds,
} from "./fault-picker.ts";
export { createSeededRandom } from "./random.ts";
export {
  faultKinds,
  faultRuleSchema,
  faultScheduleSchema,
  loadFaultSchedule,
  type ParseFaultScheduleOptions,
  parseFaultRule,
  parseFaultSchedule,
  parseFaultScheduleText,
} from "./schedule.ts";
export { startMockProviders } from "./start.ts";
export type * from "./types.ts";
