/**
 * @module
 * The Pulumi program (`pulumi up -s <stack>`): reads the stack's `stepwise:*` config through the
 * one Stepwise schema and composes the components in `stack.ts`. Every named export is a stack
 * output, so this file exports outputs only; `buildStack` lives in `stack.ts`.
 *
 * A bad config stops the program before any resource is registered, printing the same problems
 * `stepwise validate` prints (as a `RunError`, so Pulumi shows the message without a stack trace).
 */
import * as pulumi from "@pulumi/pulumi";
import { StepwiseError } from "../src/errors/index.ts";
import { readStackConfig } from "./config.ts";
import { type BuiltStack, buildStack } from "./stack.ts";

const stack = readAndBuild();

/** Per gateway: `universalUrl`, `compatUrl` (OpenAI SDK `baseURL`) and its routes' ids. */
export const gateways = stack.outputs.gateways;
/** The companion Worker's URL, when `worker.workersDevSubdomain` is set. */
export const workerUrl = stack.outputs.workerUrl;
/** The Workers KV namespace holding provider keys. */
export const kvNamespaceId = stack.outputs.kvNamespaceId;
/** The Secrets Store holding BYOK keys, when a gateway uses BYOK. */
export const secretsStoreId = stack.outputs.secretsStoreId;

function readAndBuild(): BuiltStack {
  try {
    const { config, secrets, source } = readStackConfig();
    return buildStack(config, { secrets, source });
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
