/**
 * @module
 * A gateway's dynamic routes with their versions and deployments (aig-spec §6): every save is a
 * new version, a deployment makes a version live, and rolling back is deploying an older one.
 * Routes from the config are seeded as compiled graphs (`compileDynamicRoute`), version 1
 * deployed.
 */
import * as z from "zod";
import { findGraphProblems, type RouteElement } from "../../routes/index.ts";

const elementSchema = z.object({
  id: z.string().min(1).max(128),
  type: z.enum(["start", "conditional", "percentage", "rate", "rate_limit", "model", "end"]),
  properties: z.record(z.string(), z.unknown()).optional(),
  outputs: z.record(z.string(), z.object({ elementId: z.string().min(1) })),
});

/** Elements as the REST API accepts them: well-formed JSON, then a well-formed graph. */
export const elementsSchema = z
  .array(elementSchema)
  .min(2)
  .max(200)
  .superRefine((elements, context) => {
    for (const problem of findGraphProblems(elements as RouteElement[])) {
      context.addIssue({ code: "custom", message: problem });
    }
  });

export interface RouteVersion {
  readonly version_id: string;
  readonly created_at: string;
  readonly elements: readonly RouteElement[];
}

export interface RouteDeployment {
  readonly deployment_id: string;
  readonly version_id: string;
  readonly created_at: string;
}

export interface DynamicRouteRecord {
  readonly id: string;
  name: string;
  readonly gateway_id: string;
  readonly created_at: string;
  modified_at: string;
  readonly versions: RouteVersion[];
  readonly deployments: RouteDeployment[];
}

export class RouteStore {
  readonly #routes = new Map<string, DynamicRouteRecord>();
  readonly #gatewayId: string;
  readonly #generateId: () => string;
  readonly #time: () => string;

  constructor(gatewayId: string, generateId: () => string, time: () => string) {
    this.#gatewayId = gatewayId;
    this.#generateId = generateId;
    this.#time = time;
  }

  /** Creates a route with version 1 deployed. The caller checks the name is free. */
  create(name: string, elements: readonly RouteElement[]): DynamicRouteRecord {
    const time = this.#time();
    const route: DynamicRouteRecord = {
      id: this.#generateId(),
      name,
      gateway_id: this.#gatewayId,
      created_at: time,
      modified_at: time,
      versions: [],
      deployments: [],
    };
    this.#routes.set(route.id, route);
    const version = this.addVersion(route, elements);
    this.deploy(route, version.version_id);
    return route;
  }

  list(): DynamicRouteRecord[] {
    return [...this.#routes.values()];
  }

  get(id: string): DynamicRouteRecord | undefined {
    return this.#routes.get(id);
  }

  byName(name: string): DynamicRouteRecord | undefined {
    return this.list().find((route) => route.name === name);
  }

  delete(id: string): boolean {
    return this.#routes.delete(id);
  }

  rename(route: DynamicRouteRecord, name: string): void {
    route.name = name;
    route.modified_at = this.#time();
  }

  addVersion(route: DynamicRouteRecord, elements: readonly RouteElement[]): RouteVersion {
    const version = {
      version_id: this.#generateId(),
      created_at: this.#time(),
      elements: structuredClone([...elements]),
    };
    route.versions.push(version);
    route.modified_at = version.created_at;
    return version;
  }

  /** Makes a version live; undefined when the route has no such version. */
  deploy(route: DynamicRouteRecord, versionId: string): RouteDeployment | undefined {
    if (!route.versions.some((version) => version.version_id === versionId)) return undefined;
    const deployment = {
      deployment_id: this.#generateId(),
      version_id: versionId,
      created_at: this.#time(),
    };
    route.deployments.push(deployment);
    route.modified_at = deployment.created_at;
    return deployment;
  }
}

/** The live deployment and version of a route. */
export function activeVersion(route: DynamicRouteRecord): {
  deployment: RouteDeployment;
  version: RouteVersion;
} {
  const deployment = route.deployments.at(-1)!;
  const version = route.versions.find(
    (candidate) => candidate.version_id === deployment.version_id,
  )!;
  return { deployment, version };
}

/** A version as the API shows it (`active` is a string, `data` the elements as JSON text). */
export function versionJson(route: DynamicRouteRecord, version: RouteVersion) {
  const active = activeVersion(route).version.version_id === version.version_id;
  return {
    version_id: version.version_id,
    active: active ? "true" : "false",
    created_at: version.created_at,
    data: JSON.stringify({ elements: version.elements }),
    is_valid: true,
  };
}

/** A route as the API shows it. */
export function routeJson(route: DynamicRouteRecord) {
  const { deployment, version } = activeVersion(route);
  return {
    id: route.id,
    name: route.name,
    gateway_id: route.gateway_id,
    created_at: route.created_at,
    modified_at: route.modified_at,
    elements: version.elements,
    deployment,
    version: versionJson(route, version),
  };
}
