/**
 * @module
 * `/accounts/{account}/secrets_store/stores[/{store}/secrets[/{secret}]]`: the Secrets Store subset
 * BYOK needs, as the `cloudflare` SDK's `secretsStore.stores` calls it — stores (list, create,
 * get, delete) and secrets (create several at once, list, get, edit, delete). Values are
 * write-only: no answer carries one. Editing a secret's value takes effect on the next request.
 */
import * as z from "zod";
import { RestRequestError, restErrorCodes, SecretsStoreRefusal } from "../errors.ts";
import { type SecretRecord, secretJson, secretScopes } from "../state/secrets-store.ts";
import { notFound, paginate, readBody, readPage, success } from "./envelope.ts";
import type { RestContext, RestHandler } from "./rest-context.ts";

const nameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,255}$/, {
  error: "secret names use letters, digits, - and _ (at most 255 characters)",
});
const scopesSchema = z.array(z.enum(secretScopes)).min(1, { error: "give at least one scope" });
const newSecretSchema = z.object({
  name: nameSchema,
  value: z.string().min(1),
  scopes: scopesSchema,
  comment: z.string().max(1024).optional(),
});
const editSchema = z.object({
  value: z.string().min(1).optional(),
  scopes: scopesSchema.optional(),
  comment: z.string().max(1024).optional(),
});

/** A store or secret refusal as the REST answer it stands for. */
export function secretRefusal(error: unknown): unknown {
  if (!SecretsStoreRefusal.isInstance(error)) return error;
  const status = { not_found: 404, conflict: 409, too_large: 400 }[error.reason];
  const code = {
    not_found: restErrorCodes.invalidIdentifier,
    conflict: restErrorCodes.conflict,
    too_large: restErrorCodes.invalidRequest,
  }[error.reason];
  return new RestRequestError(status, code, error.message);
}

function storeOf(context: RestContext) {
  const id = context.params.store ?? "";
  const store = context.services.gateways.secrets.getStore(id);
  if (store === undefined) throw notFound("Store", id);
  return store;
}

function secretOf(context: RestContext): SecretRecord {
  const store = storeOf(context);
  const id = context.params.secret ?? "";
  const secret = context.services.gateways.secrets.getSecret(store.id, id);
  if (secret === undefined) throw notFound("Secret", id);
  return secret;
}

export const listStores: RestHandler = (context) => {
  const { items, info } = paginate(
    context.services.gateways.secrets.listStores(),
    readPage(context.query),
  );
  return success(items, info);
};

export const createStore: RestHandler = async (context) => {
  const body = await readBody(context.request, z.object({ name: nameSchema }));
  return success(context.services.gateways.secrets.createStore(body.name));
};

export const getStore: RestHandler = (context) => success(storeOf(context));

export const deleteStore: RestHandler = (context) => {
  const store = storeOf(context);
  context.services.gateways.secrets.deleteStore(store.id);
  return success(null);
};

export const listSecrets: RestHandler = (context) => {
  const store = storeOf(context);
  const search = context.query.get("search")?.toLowerCase() ?? "";
  const all = context.services.gateways.secrets
    .listSecrets(store.id)
    .filter((secret) => secret.name.toLowerCase().includes(search))
    .map(secretJson);
  const { items, info } = paginate(all, readPage(context.query));
  return success(items, info);
};

/** POST takes an array of secrets and answers with the created ones (a single page). */
export const createSecrets: RestHandler = async (context) => {
  const store = storeOf(context);
  const body = await readBody(context.request, z.array(newSecretSchema).min(1).max(100));
  const secrets = context.services.gateways.secrets;
  try {
    return success(body.map((input) => secretJson(secrets.createSecret(store.id, input))));
  } catch (error) {
    throw secretRefusal(error);
  }
};

export const getSecret: RestHandler = (context) => success(secretJson(secretOf(context)));

export const editSecret: RestHandler = async (context) => {
  const secret = secretOf(context);
  const body = await readBody(context.request, editSchema);
  try {
    return success(secretJson(context.services.gateways.secrets.editSecret(secret, body)));
  } catch (error) {
    throw secretRefusal(error);
  }
};

export const deleteSecret: RestHandler = (context) => {
  const secret = secretOf(context);
  context.services.gateways.secrets.deleteSecret(secret);
  return success(null);
};
