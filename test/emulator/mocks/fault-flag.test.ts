import { describe, expect, it } from "vitest";
import { faultScheduleFromFlags, parseFaultFlag } from "../../../src/emulator/mocks/index.ts";
import { catchError } from "./helpers.ts";

describe("parseFaultFlag", () => {
  it.each([
    ["unavailable", { kind: "unavailable" }],
    ["openai:unavailable", { provider: "openai", kind: "unavailable" }],
    ["anthropic=overloaded,count=3", { provider: "anthropic", kind: "overloaded", count: 3 }],
    [
      "openai:gpt-4o-mini=rate-limit,rate=0.2",
      { provider: "openai", model: "gpt-4o-mini", kind: "rate-limit", rate: 0.2 },
    ],
    [
      "openrouter:meta-llama/llama-3.1-8b-instruct:free=no-response",
      {
        provider: "openrouter",
        model: "meta-llama/llama-3.1-8b-instruct:free",
        kind: "no-response",
      },
    ],
    ["*=slow-first-byte,delayMs=500", { kind: "slow-first-byte", delayMs: 500 }],
    ["groq=down,fromMs=10,untilMs=20", { provider: "groq", kind: "down", fromMs: 10, untilMs: 20 }],
  ])("%s", (flag, rule) => {
    expect(parseFaultFlag(flag)).toEqual(rule);
  });

  it.each([
    ["", "fault_flag_invalid", /empty/],
    ["openai=unavailible", "fault_flag_invalid", /unknown fault kind "unavailible"/],
    ["openai=unavailable,ratio=0.2", "fault_flag_invalid", /unknown option "ratio"/],
    ["openai=unavailable,rate=lots", "fault_flag_invalid", /rate needs a number/],
    ["openai:gpt-4o:unavailable", "fault_flag_invalid", /provider:model=kind/],
    ["openai=unavailable,rate=3", "fault_schedule_invalid", /rate/],
    ["opnai=unavailable", "fault_schedule_invalid", /unknown provider "opnai"/],
  ])("rejects %j", (flag, code, message) => {
    const error = catchError(() => parseFaultFlag(flag));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it("faultScheduleFromFlags keeps the order and the seed", () => {
    expect(faultScheduleFromFlags(["openai:unavailable,count=1", "rate-limit"], 7)).toEqual({
      seed: 7,
      rules: [{ provider: "openai", kind: "unavailable", count: 1 }, { kind: "rate-limit" }],
    });
  });
});
