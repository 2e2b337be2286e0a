/**
 * @module
 * What becomes of each step setting in a dynamic route. A model element has only `provider`,
 * `model`, `timeout` and `retries`; the universal endpoint takes more per step. This table is the
 * one place that says which setting maps to what, read by the compiler (to map) and by the deploy
 * checks (to warn about what a dynamic route drops). Typed over every key of a step, so a new
 * step setting does not compile until it is placed here.
 */
import type { RouteConfig, StepConfig } from "../config/schema.ts";
import type { ModelElementProperties } from "./elements.ts";
import { routeChains } from "./policy.ts";

/** How one step setting is expressed in a model element. */
export type StepSettingMapping =
  | {
      readonly kind: "mapped";
      /** Writes the setting onto the model element's properties. */
      readonly apply: (properties: ModelElementProperties, step: StepConfig) => void;
    }
  | {
      readonly kind: "dropped";
      /** Why a dynamic route cannot express it, and what happens instead. */
      readonly reason: string;
    };

export const stepSettingsInDynamicRoutes: Readonly<Record<keyof StepConfig, StepSettingMapping>> = {
  provider: {
    kind: "mapped",
    apply: (properties, step) => {
      properties.provider = step.provider;
    },
  },
  model: {
    kind: "mapped",
    apply: (properties, step) => {
      properties.model = step.model;
    },
  },
  timeoutMs: {
    kind: "mapped",
    apply: (properties, step) => {
      if (step.timeoutMs !== undefined) properties.timeout = step.timeoutMs;
    },
  },
  retries: {
    kind: "mapped",
    apply: (properties, step) => {
      if (step.retries !== undefined) properties.retries = step.retries;
    },
  },
  retryDelayMs: {
    kind: "dropped",
    reason:
      "a model element has no retry delay (only timeout and retries); dynamic/<route> retries without it",
  },
  backoff: {
    kind: "dropped",
    reason:
      "a model element has no backoff (only timeout and retries); dynamic/<route> retries without it",
  },
  cacheTtl: {
    kind: "dropped",
    reason:
      "a model element has no cache setting; dynamic/<route> caches by the request's cf-aig-cache-ttl or the gateway's TTL",
  },
  // Enforced by the client on the streams it reads, whatever the route mode: nothing to deploy.
  firstTokenTimeoutMs: { kind: "mapped", apply: () => undefined },
  idleTimeoutMs: { kind: "mapped", apply: () => undefined },
};

/** Route-level settings a dynamic route cannot express, and why. */
export const routeSettingsDroppedInDynamicRoutes: Readonly<
  Partial<Record<keyof RouteConfig, string>>
> = {
  deadlineMs:
    "a dynamic route has no overall deadline; only each model's timeout and retries bound it",
};

/** A step setting the compiler leaves out of a dynamic route. */
export interface DroppedSetting {
  /** The step's chain (`default` for the route's steps); undefined for a route-level setting. */
  readonly chain?: string;
  /** The step's index in its chain, or undefined for a route-level setting. */
  readonly step: number | undefined;
  readonly setting: string;
  readonly value: unknown;
  readonly reason: string;
}

/** Every setting of a route that its dynamic-route form leaves out. */
export function droppedDynamicSettings(route: RouteConfig): DroppedSetting[] {
  const dropped: DroppedSetting[] = [];
  for (const [setting, reason] of Object.entries(routeSettingsDroppedInDynamicRoutes)) {
    const value = route[setting as keyof RouteConfig];
    if (value !== undefined && reason !== undefined) {
      dropped.push({ step: undefined, setting, value, reason });
    }
  }
  for (const chain of routeChains(route)) {
    chain.steps.forEach((step, index) => {
      for (const [setting, value] of Object.entries(step)) {
        const mapping = stepSettingsInDynamicRoutes[setting as keyof StepConfig];
        if (value !== undefined && mapping?.kind === "dropped") {
          dropped.push({ chain: chain.name, step: index, setting, value, reason: mapping.reason });
        }
      }
    });
  }
  return dropped;
}

/** A step as a model element's properties: every mapped setting, nothing else. */
export function modelProperties(step: StepConfig): ModelElementProperties {
  const properties: ModelElementProperties = { provider: step.provider, model: step.model };
  for (const mapping of Object.values(stepSettingsInDynamicRoutes)) {
    if (mapping.kind === "mapped") mapping.apply(properties, step);
  }
  return properties;
}
