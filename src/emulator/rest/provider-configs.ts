/**
 * @module
 * `/accounts/{account}/ai-gateway/gateways/{id}/provider_configs`: a gateway's BYOK keys, as the
 * `cloudflare` SDK's `aiGateway.providerConfigs` manages them — create (with a Secrets Store
 * `secret_id`, or a plain `secret` the gateway stores as `{gateway}_{provider}_{alias}` in its
 * store), list — and delete by id (not in the SDK; the emulator's guess at the API's shape, for
 * tools that remove what they made).
 */
import * as z from "zod";
import { isKnownProvider } from "../../providers/index.ts";
import { RestRequestError, restErrorCodes } from "../errors.ts";
import {
  byokSecretName,
  type ProviderConfigRecord,
  providerConfigJson,
} from "../state/provider-configs.ts";
import { notFound, paginate, readBody, readPage, success } from "./envelope.ts";
import { gatewayOf } from "./gateways.ts";
import type { RestHandler } from "./rest-context.ts";
import { secretRefusal } from "./secrets.ts";

const createSchema = z
  .object({
    alias: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, {
      error: "alias uses letters, digits, - and _ (at most 64 characters)",
    }),
    default_config: z.boolean(),
    provider_slug: z.string().refine(isKnownProvider, {
      error: "provider_slug must be a provider slug such as openai, anthropic or custom-<slug>",
    }),
    secret: z.string().min(1).optional(),
    secret_id: z.string().min(1).optional(),
    rate_limit: z.number().min(0).optional(),
    rate_limit_period: z.number().min(0).optional(),
  })
  .refine((body) => (body.secret === undefined) !== (body.secret_id === undefined), {
    error: "send exactly one of secret (the key) or secret_id (a Secrets Store secret)",
  });

export const listProviderConfigs: RestHandler = (context) => {
  const all = gatewayOf(context).providerConfigs.list().map(providerConfigJson);
  const { items, info } = paginate(all, readPage(context.query));
  return success(items, info);
};

export const createProviderConfig: RestHandler = async (context) => {
  const gateway = gatewayOf(context);
  const body = await readBody(context.request, createSchema);
  const { services } = context;
  const storeId = gateway.settings.store_id;
  if (storeId === null) {
    throw new RestRequestError(
      400,
      restErrorCodes.invalidRequest,
      `Gateway "${gateway.id}" has no Secrets Store: set its store_id first (PUT the gateway with store_id).`,
    );
  }
  const secrets = services.gateways.secrets;
  const name = byokSecretName(gateway.id, body.provider_slug, body.alias);
  let secretId = body.secret_id;
  if (body.secret !== undefined) {
    const existing = secrets.findByName(storeId, name);
    try {
      secretId = existing
        ? secrets.editSecret(existing, { value: body.secret }).id
        : secrets.createSecret(storeId, { name, value: body.secret, scopes: ["ai_gateway"] }).id;
    } catch (error) {
      throw secretRefusal(error);
    }
  } else if (secrets.getSecret(storeId, secretId ?? "") === undefined) {
    throw notFound("Secret", secretId ?? "");
  }
  const config: ProviderConfigRecord = {
    id: services.generateId().toLowerCase(),
    alias: body.alias,
    default_config: body.default_config,
    gateway_id: gateway.id,
    modified_at: new Date(services.now()).toISOString(),
    provider_slug: body.provider_slug,
    secret_id: secretId ?? "",
    ...(body.rate_limit === undefined ? {} : { rate_limit: body.rate_limit }),
    ...(body.rate_limit_period === undefined ? {} : { rate_limit_period: body.rate_limit_period }),
  };
  return success(providerConfigJson(gateway.providerConfigs.put(config)));
};

export const deleteProviderConfig: RestHandler = (context) => {
  const gateway = gatewayOf(context);
  const id = context.params.config ?? "";
  const config = gateway.providerConfigs.get(id);
  if (config === undefined) throw notFound("Provider config", id);
  gateway.providerConfigs.delete(id);
  return success(providerConfigJson(config));
};
