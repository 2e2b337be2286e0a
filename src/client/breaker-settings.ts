/**
 * @module
 * A circuit breaker's settings: the defaults, and the options given to `createCircuitBreaker`
 * merged over them and checked, every setting out of range named at once.
 */

import type { BreakerOptions } from "./breaker-types.ts";
import { InvalidOptionsError } from "./call-errors.ts";

/** Every setting but the clock, filled in. */
export type BreakerSettings = Required<Omit<BreakerOptions, "now">>;

export const defaultBreakerOptions: BreakerSettings = {
  failureThreshold: 5,
  failureRateThreshold: 0.5,
  windowMs: 60_000,
  minimumCalls: 10,
  cooldownMs: 2_000,
  maxCooldownMs: 30_000,
  whenOpen: "move-to-end",
};

/**
 * The options over the defaults; `maxCooldownMs` defaults to 15 × `cooldownMs`.
 * @throws InvalidOptionsError naming each setting out of range.
 */
export function breakerSettings(options: BreakerOptions): BreakerSettings {
  const settings = { ...defaultBreakerOptions };
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined && name !== "now") Object.assign(settings, { [name]: value });
  }
  if (options.maxCooldownMs === undefined) settings.maxCooldownMs = 15 * settings.cooldownMs;
  const problems = settingProblems(settings);
  if (problems.length > 0) {
    throw new InvalidOptionsError({ message: `createCircuitBreaker: ${problems.join("; ")}.` });
  }
  return settings;
}

function settingProblems(settings: BreakerSettings): string[] {
  const problems: string[] = [];
  const rate = settings.failureRateThreshold;
  if (!(rate > 0 && rate <= 1)) {
    problems.push(`failureRateThreshold must be above 0 and at most 1, got ${rate}`);
  }
  for (const name of [
    "failureThreshold",
    "minimumCalls",
    "windowMs",
    "cooldownMs",
    "maxCooldownMs",
  ] as const) {
    const value = settings[name];
    if (!(Number.isInteger(value) && value > 0)) {
      problems.push(`${name} must be a positive whole number, got ${value}`);
    }
  }
  if (settings.maxCooldownMs < settings.cooldownMs) {
    problems.push(
      `maxCooldownMs (${settings.maxCooldownMs}) must be at least cooldownMs (${settings.cooldownMs})`,
    );
  }
  if (settings.whenOpen !== "move-to-end" && settings.whenOpen !== "drop") {
    problems.push(`whenOpen must be "move-to-end" or "drop", got ${String(settings.whenOpen)}`);
  }
  return problems;
}
