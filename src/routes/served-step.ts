/**
 * @module
 * The way back: from a gateway response's headers to the route step that served it. Universal
 * requests carry `cf-aig-step` (0-based); dynamic routes carry `cf-aig-provider` and
 * `cf-aig-model`. Both are read, since the live service has been seen not to increment the step.
 */
import type { RouteConfig, StepConfig } from "../config/schema.ts";

export interface ServedStepHeaders {
  readonly step?: string | null;
  readonly provider?: string | null;
  readonly model?: string | null;
}

export interface ServedStep {
  readonly index: number;
  readonly step: StepConfig;
}

/** Reads the served-step headers from a response's headers. */
export function servedStepHeaders(headers: Headers): ServedStepHeaders {
  return {
    step: headers.get("cf-aig-step"),
    provider: headers.get("cf-aig-provider"),
    model: headers.get("cf-aig-model"),
  };
}

/**
 * Finds the route step that served a response. Provider and model, when present, win over the
 * step index (they identify the step even if the index is stale); an index alone is used when they
 * are absent. Returns undefined when the headers match no step.
 */
export function resolveServedStep(
  route: RouteConfig,
  headers: ServedStepHeaders,
): ServedStep | undefined {
  const { provider, model } = headers;
  if (provider) {
    const matches = route.steps
      .map((step, index) => ({ index, step }))
      .filter(
        ({ step }) =>
          step.provider === provider &&
          (!model || step.model === model || model.endsWith(`/${step.model}`)),
      );
    const fromIndex = parseStepIndex(headers.step);
    const preferred = matches.find((match) => match.index === fromIndex) ?? matches[0];
    if (preferred) return preferred;
    return undefined;
  }
  const index = parseStepIndex(headers.step);
  if (index === undefined) return undefined;
  const step = route.steps[index];
  return step === undefined ? undefined : { index, step };
}

function parseStepIndex(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
