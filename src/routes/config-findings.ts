/**
 * @module
 * Everything `stepwise validate` and the Pulumi program's preflight report about a valid config:
 * what Cloudflare would not run as written (`deploy-checks.ts`) and models that are retiring or
 * retired (`model-retirement.ts`), and a companion Worker view too big for its variable
 * (`src/config/worker-view-build.ts`), and settings the Pulumi provider cannot send
 * (`src/config/unsendable-settings.ts`). Errors stop both; warnings are printed.
 */
import type { ConfigFinding } from "../config/findings.ts";
import type { StepwiseConfig } from "../config/schema.ts";
import { findUnsendableSettings } from "../config/unsendable-settings.ts";
import { findWorkerViewProblems } from "../config/worker-view-build.ts";
import { findDeployProblems } from "./deploy-checks.ts";
import { findModelRetirements } from "./model-retirement.ts";

export interface ConfigFindingOptions {
  /** Epoch ms that retirement dates are compared with. Default `Date.now()`. */
  readonly now?: number;
}

/** Every finding about a valid config, errors and warnings. */
export function findConfigFindings(
  config: StepwiseConfig,
  options: ConfigFindingOptions = {},
): ConfigFinding[] {
  return [
    ...findDeployProblems(config),
    ...findModelRetirements(config, options.now ?? Date.now()),
    ...findWorkerViewProblems(config),
    ...findUnsendableSettings(config),
  ];
}
