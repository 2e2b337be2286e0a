/**
 * @module
 * `/accounts/{account}/ai-gateway/gateways/{id}/routes`: dynamic routes with versions and
 * deployments (aig-spec §6). Creating a route deploys its first version; a new version is live
 * only once deployed; deploying an older version rolls back. List endpoints answer
 * `{success, data: {routes|versions|deployments, page, per_page, order_by, order_by_direction}}`.
 */
import * as z from "zod";
import type { RouteElement } from "../../routes/index.ts";
import { RestRequestError, restErrorCodes } from "../errors.ts";
import {
  activeVersion,
  type DynamicRouteRecord,
  elementsSchema,
  routeJson,
  versionJson,
} from "../state/route-store.ts";
import { notFound, paginate, readBody, readPage, success } from "./envelope.ts";
import { gatewayOf } from "./gateways.ts";
import type { RestContext, RestHandler } from "./rest-context.ts";

const nameSchema = z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$/, {
  error: "route names use letters, digits, -, _ and . (at most 64 characters)",
});

function routeOf(context: RestContext): DynamicRouteRecord {
  const id = context.params.route ?? "";
  const route = gatewayOf(context).routes.get(id);
  if (route === undefined) throw notFound("Route", id);
  return route;
}

function listEnvelope(context: RestContext, field: string, items: readonly unknown[]) {
  const page = readPage(context.query, 20, 100);
  const { items: pageItems } = paginate(items, page);
  return {
    success: true,
    errors: [],
    messages: [],
    data: {
      [field]: pageItems,
      page: page.page,
      per_page: page.perPage,
      order_by: "created_at",
      order_by_direction: "asc",
    },
  };
}

function withAccount(context: RestContext, route: DynamicRouteRecord) {
  return { ...routeJson(route), account_tag: context.services.config.accountId };
}

export const listRoutes: RestHandler = (context) =>
  listEnvelope(
    context,
    "routes",
    gatewayOf(context)
      .routes.list()
      .map((route) => withAccount(context, route)),
  );

export const createRoute: RestHandler = async (context) => {
  const gateway = gatewayOf(context);
  const body = await readBody(
    context.request,
    z.object({ name: nameSchema, elements: elementsSchema }),
  );
  if (gateway.routes.byName(body.name)) {
    throw new RestRequestError(
      409,
      restErrorCodes.conflict,
      `Route "${body.name}" already exists in gateway ${gateway.id}; add a version to change it.`,
    );
  }
  return success(
    withAccount(context, gateway.routes.create(body.name, body.elements as RouteElement[])),
  );
};

export const getRoute: RestHandler = (context) => success(withAccount(context, routeOf(context)));

export const renameRoute: RestHandler = async (context) => {
  const gateway = gatewayOf(context);
  const route = routeOf(context);
  const body = await readBody(context.request, z.object({ name: nameSchema }));
  const clash = gateway.routes.byName(body.name);
  if (clash && clash.id !== route.id) {
    throw new RestRequestError(
      409,
      restErrorCodes.conflict,
      `Route "${body.name}" already exists.`,
    );
  }
  gateway.routes.rename(route, body.name);
  const json = withAccount(context, route);
  return { success: true, errors: [], messages: [], result: json, route: json };
};

export const deleteRoute: RestHandler = (context) => {
  const route = routeOf(context);
  gatewayOf(context).routes.delete(route.id);
  return success(withAccount(context, route));
};

export const listVersions: RestHandler = (context) => {
  const route = routeOf(context);
  return listEnvelope(
    context,
    "versions",
    route.versions.map((version) => versionJson(route, version)),
  );
};

export const createVersion: RestHandler = async (context) => {
  const gateway = gatewayOf(context);
  const route = routeOf(context);
  const body = await readBody(context.request, z.object({ elements: elementsSchema }));
  const version = gateway.routes.addVersion(route, body.elements as RouteElement[]);
  return success({
    ...withAccount(context, route),
    elements: version.elements,
    version_id: version.version_id,
    version: versionJson(route, version),
  });
};

export const getVersion: RestHandler = (context) => {
  const route = routeOf(context);
  const id = context.params.version ?? "";
  const version = route.versions.find((candidate) => candidate.version_id === id);
  if (version === undefined) throw notFound("Version", id);
  return success({
    ...withAccount(context, route),
    ...versionJson(route, version),
    elements: version.elements,
  });
};

export const listDeployments: RestHandler = (context) =>
  listEnvelope(context, "deployments", routeOf(context).deployments);

export const createDeployment: RestHandler = async (context) => {
  const gateway = gatewayOf(context);
  const route = routeOf(context);
  const body = await readBody(context.request, z.object({ version_id: z.string().min(1) }));
  const deployment = gateway.routes.deploy(route, body.version_id);
  if (deployment === undefined) throw notFound("Version", body.version_id);
  return success({
    ...withAccount(context, route),
    deployment,
    version: versionJson(route, activeVersion(route).version),
  });
};
