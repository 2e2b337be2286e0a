/**
 * @module
 * `/accounts/{account}/ai-gateway/gateways[/{id}]`: list (with `search` and pages), get, create,
 * update (PUT, a full replace that takes effect on the next request) and delete.
 */
import { RestRequestError, restErrorCodes } from "../errors.ts";
import { gatewayCreateSchema, gatewayUpdateSchema } from "../state/gateway-settings.ts";
import { notFound, paginate, readBody, readPage, success } from "./envelope.ts";
import type { RestContext, RestHandler } from "./rest-context.ts";

function gatewayOf(context: RestContext) {
  const id = context.params.gateway ?? "";
  const gateway = context.services.gateways.get(id);
  if (gateway === undefined) throw notFound("Gateway", id);
  return gateway;
}

export const listGateways: RestHandler = (context) => {
  const search = context.query.get("search")?.toLowerCase() ?? "";
  const all = context.services.gateways
    .list()
    .map((gateway) => gateway.settings)
    .filter((settings) => settings.id.toLowerCase().includes(search));
  const { items, info } = paginate(all, readPage(context.query));
  return success(items, info);
};

export const getGateway: RestHandler = (context) => success(gatewayOf(context).settings);

export const createGateway: RestHandler = async (context) => {
  const body = await readBody(context.request, gatewayCreateSchema);
  if (context.services.gateways.get(body.id)) {
    throw new RestRequestError(
      409,
      restErrorCodes.conflict,
      `Gateway "${body.id}" already exists; update it with PUT instead.`,
    );
  }
  const { id, ...settings } = body;
  return success(context.services.gateways.create(id, settings).settings);
};

export const updateGateway: RestHandler = async (context) => {
  const gateway = gatewayOf(context);
  const body = await readBody(context.request, gatewayUpdateSchema);
  const { id: _ignored, ...settings } = body as typeof body & { id?: unknown };
  return success(context.services.gateways.update(gateway, settings));
};

export const deleteGateway: RestHandler = (context) => {
  const gateway = gatewayOf(context);
  context.services.gateways.delete(gateway.id);
  return success(gateway.settings);
};

export { gatewayOf };
