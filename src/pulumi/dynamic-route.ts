/**
 * @module
 * Route compiler output (the API/SDK spelling of dynamic-routing elements) → the input shape of
 * `cloudflare.AiGatewayDynamicRouting`, and a content hash of a route graph. Pure.
 *
 * The spellings differ in two places: a model element's `provider` is
 * `aiGatewayDynamicRoutingProvider` in Pulumi, and a conditional's `conditions` is a JSON string.
 * Anything the Pulumi schema cannot express (percentage ports such as `"10%"`) is rejected here,
 * loudly, rather than dropped from the deployed route; `expressibleInPulumi` tells beforehand, and
 * such graphs are deployed by `VersionedDynamicRoute` (`versioned-route.ts`) instead.
 */
import { createHash } from "node:crypto";
import type * as cloudflare from "@pulumi/cloudflare";
import type { RouteElement } from "../routes/index.ts";
import { InfraError } from "./errors.ts";

/** One element as `cloudflare.AiGatewayDynamicRouting` takes it. */
export type PulumiRouteElement = cloudflare.types.input.AiGatewayDynamicRoutingElement;
type PulumiOutputs = cloudflare.types.input.AiGatewayDynamicRoutingElementOutputs;
type PulumiProperties = cloudflare.types.input.AiGatewayDynamicRoutingElementProperties;

/** Output ports the Pulumi schema has a field for. */
const portNames = ["next", "success", "fallback", "true", "false"] as const;
type PortName = (typeof portNames)[number];

/** SDK property name → Pulumi property name, for the properties Pulumi can hold. */
const propertyNames: Readonly<Record<string, keyof PulumiProperties>> = {
  provider: "aiGatewayDynamicRoutingProvider",
  model: "model",
  timeout: "timeout",
  retries: "retries",
  conditions: "conditions",
  key: "key",
  limit: "limit",
  limitType: "limitType",
  window: "window",
};

/**
 * Converts compiled elements to Pulumi inputs, keeping their order and ids.
 * @throws {InfraError} `route_not_expressible` for a port or property the Pulumi schema has no
 *   field for (a route compiler newer than this program, not a user config problem).
 * @example toPulumiElements(compileDynamicRoute(route))
 */
export function toPulumiElements(elements: readonly RouteElement[]): PulumiRouteElement[] {
  return elements.map((element) => {
    const converted: PulumiRouteElement = {
      id: element.id,
      type: element.type,
      outputs: toPulumiOutputs(element),
    };
    if (element.properties !== undefined) {
      converted.properties = toPulumiProperties(element);
    }
    return converted;
  });
}

function toPulumiOutputs(element: RouteElement): PulumiOutputs {
  const outputs: PulumiOutputs = {};
  for (const [port, target] of Object.entries(element.outputs)) {
    if (!(portNames as readonly string[]).includes(port)) {
      throw new InfraError({
        code: "route_not_expressible",
        message: `element "${element.id}" has output "${port}", which @pulumi/cloudflare's AiGatewayDynamicRouting cannot express (it knows ${portNames.join(", ")})`,
      });
    }
    outputs[port as PortName] = { elementId: target.elementId };
  }
  return outputs;
}

function toPulumiProperties(element: RouteElement): PulumiProperties {
  const properties: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(element.properties ?? {})) {
    if (value === undefined) continue;
    const pulumiName = propertyNames[name];
    if (pulumiName === undefined) {
      throw new InfraError({
        code: "route_not_expressible",
        message: `element "${element.id}" has property "${name}", which @pulumi/cloudflare's AiGatewayDynamicRouting cannot express`,
      });
    }
    // Pulumi holds conditions as a JSON string (the provider normalises it as JSON).
    properties[pulumiName] =
      name === "conditions" && typeof value !== "string" ? JSON.stringify(value) : value;
  }
  return properties as PulumiProperties;
}

/**
 * Whether `cloudflare.AiGatewayDynamicRouting` can hold these elements: every output port and
 * property has a field in its schema. A percentage element's ports (`"10%"`, `else`) do not.
 */
export function expressibleInPulumi(elements: readonly RouteElement[]): boolean {
  return elements.every(
    (element) =>
      Object.keys(element.outputs).every((port) =>
        (portNames as readonly string[]).includes(port),
      ) && Object.keys(element.properties ?? {}).every((name) => name in propertyNames),
  );
}

/**
 * A stable hash of a route graph: sha256 over its canonical JSON (keys sorted), so the same graph
 * always gives the same hash whatever order its object keys were built in.
 */
export function routeGraphHash(elements: readonly RouteElement[]): string {
  return `sha256:${createHash("sha256").update(canonicalJson(elements)).digest("hex")}`;
}

/** JSON with object keys sorted at every level and `undefined` members left out. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}
