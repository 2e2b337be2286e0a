/**
 * @module
 * `buildCurrentStack`: what a Pulumi program's `index.ts` calls. It reads the running stack's
 * `stepwise:*` config through the one Stepwise schema (`readStackConfig`) and declares every
 * resource (`buildStack`). A bad config stops the program before any resource is registered,
 * printing the same problems `stepwise validate` prints, as a `RunError`, so Pulumi shows the
 * message without a stack trace.
 */
import * as pulumi from "@pulumi/pulumi";
import { StepwiseError } from "../errors/index.ts";
import { readStackConfig } from "./config.ts";
import { type BuildStackOptions, type BuiltStack, buildStack } from "./stack.ts";

/**
 * Reads and builds the running stack.
 * @param options as for `buildStack`; `secrets` and `source` come from the stack.
 * @throws {pulumi.RunError} for a bad config or a failed preflight check, with its message.
 * @example
 * const stack = buildCurrentStack();
 * export const gateways = stack.outputs.gateways;
 */
export function buildCurrentStack(
  options: Omit<BuildStackOptions, "secrets" | "source"> = {},
): BuiltStack {
  try {
    const { config, secrets, source } = readStackConfig();
    return buildStack(config, { ...options, secrets, source });
  } catch (error) {
    if (!StepwiseError.isInstance(error)) throw error;
    // A RunError is reported by its message alone. Its stack is dropped because Pulumi's runner
    // formats every failure with util.inspect for tracing, and with the inspector session it
    // keeps open that takes tens of seconds for an error with a stack.
    const runError = Object.assign(new pulumi.RunError(error.message), { cause: error });
    runError.stack = undefined;
    throw runError;
  }
}
