/**
 * @module
 * `/accounts/{account}/ai-gateway/gateways/{id}/datasets[/{dataset}]`: create, list (by `name`,
 * `enable`, `search`), get, replace (PUT) and delete, as the `cloudflare` SDK's
 * `aiGateway.datasets` calls them. Stored only; the emulator runs no evaluations.
 */
import { type DatasetRecord, datasetBodySchema } from "../state/datasets.ts";
import { notFound, paginate, readBody, readPage, success } from "./envelope.ts";
import { gatewayOf } from "./gateways.ts";
import type { RestContext, RestHandler } from "./rest-context.ts";

function datasetOf(context: RestContext): DatasetRecord {
  const id = context.params.dataset ?? "";
  const dataset = gatewayOf(context).datasets.get(id);
  if (dataset === undefined) throw notFound("Dataset", id);
  return dataset;
}

export const listDatasets: RestHandler = (context) => {
  const { query } = context;
  const name = query.get("name");
  const enable = query.get("enable");
  const search = query.get("search")?.toLowerCase() ?? "";
  const all = gatewayOf(context)
    .datasets.list()
    .filter((dataset) => name === null || dataset.name === name)
    .filter((dataset) => enable === null || String(dataset.enable) === enable)
    .filter((dataset) => dataset.name.toLowerCase().includes(search));
  const { items, info } = paginate(all, readPage(query));
  return success(items, info);
};

export const createDataset: RestHandler = async (context) => {
  const gateway = gatewayOf(context);
  const body = await readBody(context.request, datasetBodySchema);
  const time = new Date(context.services.now()).toISOString();
  return success(
    gateway.datasets.put({
      ...body,
      id: context.services.generateId().toLowerCase(),
      gateway_id: gateway.id,
      created_at: time,
      modified_at: time,
    }),
  );
};

export const getDataset: RestHandler = (context) => success(datasetOf(context));

export const updateDataset: RestHandler = async (context) => {
  const existing = datasetOf(context);
  const body = await readBody(context.request, datasetBodySchema);
  return success(
    gatewayOf(context).datasets.put({
      ...existing,
      ...body,
      modified_at: new Date(context.services.now()).toISOString(),
    }),
  );
};

export const deleteDataset: RestHandler = (context) => {
  const dataset = datasetOf(context);
  gatewayOf(context).datasets.delete(dataset.id);
  return success(dataset);
};
