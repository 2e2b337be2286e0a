/**
 * @module
 * The `--fault-rule` command-line option: one fault rule in one string.
 *
 * Syntax: `[provider[:model]=]kind[,option=value]...`
 * - `provider` is a slug or `*` (all providers); `model` may contain `:` and `/`.
 * - Without `=`, the target may be written `provider:kind` (or just `kind` for every provider).
 * - Options: `rate`, `count`, `delayMs`, `retryAfterSeconds`, `fromMs`, `untilMs` (numbers).
 * @example
 * parseFaultFlag("openai:unavailable");                      // every openai model, 503
 * parseFaultFlag("anthropic=overloaded,count=3");            // three 529s, then healthy
 * parseFaultFlag("openai:gpt-4o-mini=rate-limit,rate=0.2");  // one attempt in five gets a 429
 * parseFaultFlag("*=slow-first-byte,delayMs=500");
 */

import { FaultScheduleError } from "./errors.ts";
import { faultKinds, parseFaultRule } from "./schedule.ts";
import type { FaultRule, FaultSchedule } from "./types.ts";

/** The flag syntax, shown in every flag error. */
export const faultFlagSyntax =
  "--fault-rule [provider[:model]=]kind[,rate=0.2][,count=3][,delayMs=500][,retryAfterSeconds=1][,fromMs=…][,untilMs=…]";

const numericOptions = ["rate", "count", "delayMs", "retryAfterSeconds", "fromMs", "untilMs"];

function flagError(flag: string, message: string): FaultScheduleError {
  return new FaultScheduleError({
    code: "fault_flag_invalid",
    source: `--fault-rule ${flag}`,
    issues: [{ path: "", message: `${message}. Syntax: ${faultFlagSyntax}` }],
  });
}

function isFaultKind(text: string): boolean {
  return (faultKinds as readonly string[]).includes(text);
}

/** Splits the part before the first comma into a target and a kind. */
function readHead(flag: string, head: string): Record<string, string> {
  const equals = head.lastIndexOf("=");
  let target: string;
  let kind: string;
  if (equals !== -1) {
    target = head.slice(0, equals);
    kind = head.slice(equals + 1);
  } else {
    const colon = head.lastIndexOf(":");
    target = colon === -1 ? "" : head.slice(0, colon);
    kind = colon === -1 ? head : head.slice(colon + 1);
    if (target.includes(":")) {
      throw flagError(flag, `write "provider:model=kind" to target a model`);
    }
  }
  kind = kind.trim();
  if (!isFaultKind(kind)) {
    throw flagError(flag, `unknown fault kind "${kind}" (kinds: ${faultKinds.join(", ")})`);
  }
  const colon = target.indexOf(":");
  const provider = (colon === -1 ? target : target.slice(0, colon)).trim();
  const model = colon === -1 ? "" : target.slice(colon + 1).trim();
  return {
    kind,
    ...(provider === "" || provider === "*" ? {} : { provider }),
    ...(model === "" ? {} : { model }),
  };
}

/**
 * Parses one `--fault-rule` option into a fault rule.
 * @throws FaultScheduleError (`fault_flag_invalid` for the syntax, `fault_schedule_invalid` for
 * a bad value) with a message that shows the syntax.
 */
export function parseFaultFlag(flag: string): FaultRule {
  const [head = "", ...options] = flag.split(",");
  if (head.trim() === "") throw flagError(flag, "the flag is empty");
  const rule: Record<string, unknown> = readHead(flag, head);
  for (const option of options) {
    const equals = option.indexOf("=");
    const name = equals === -1 ? option.trim() : option.slice(0, equals).trim();
    const value = equals === -1 ? "" : option.slice(equals + 1).trim();
    if (!numericOptions.includes(name)) {
      throw flagError(flag, `unknown option "${name}" (options: ${numericOptions.join(", ")})`);
    }
    const number = Number(value);
    if (value === "" || !Number.isFinite(number)) {
      throw flagError(
        flag,
        `${name} needs a number, e.g. ${name}=${name === "rate" ? "0.2" : "3"}`,
      );
    }
    rule[name] = number;
  }
  return parseFaultRule(rule, `--fault-rule ${flag}`);
}

/** A schedule from several `--fault-rule` options, in order, with an optional seed. */
export function faultScheduleFromFlags(flags: readonly string[], seed?: number): FaultSchedule {
  const rules = flags.map(parseFaultFlag);
  return seed === undefined ? { rules } : { seed, rules };
}
