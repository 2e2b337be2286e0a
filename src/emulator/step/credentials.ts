/**
 * @module
 * Which provider key goes upstream: the three answers of features/unified-billing.mdx, in order.
 * 1. A key on the request (the provider's own auth header), used as sent.
 * 2. A key stored in the gateway (BYOK): Secrets Store secrets named `{gateway}_{provider}_{alias}`
 *    in its store (`store_id`), each listed in its provider configs; `cf-aig-byok-alias` picks an
 *    alias (else `default`), and an alias named explicitly wins over a request key and must exist
 *    (else 400, code 2040).
 * 3. Unified Billing: Cloudflare's own key, paid from the account's credits (402, code 2021, when
 *    none are left), for the providers it supports, on authenticated gateways and the REST API.
 *    A gateway with `byok_only` ("Require provider credentials", changelog 2026-09-14) or a request
 *    with `cf-aig-no-wholesale: true` refuses a third-party call that has neither key (400);
 *    Workers AI is exempt: it is billed to the account, whose key the gateway sends when the
 *    caller authenticated (REST API, or an authenticated gateway).
 * Where Cloudflare is silent (the order of 1 and 2, the 400's code) the choice is listed in
 * docs/emulator.md. Dynamic routes use stored keys only (see `dynamic-routes/run-route.ts`).
 */
import { unifiedBillingProviders } from "../../config/index.ts";
import { getProvider } from "../../providers/index.ts";
import { GatewayRequestError, gatewayError, gatewayErrorCodes } from "../errors.ts";
import { unifiedBillingKey, workersAiAccountKey } from "../options.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import { byokSecretName, defaultByokAlias } from "../state/provider-configs.ts";
import { jsonUpstreamResponse, type UpstreamResponse } from "../transport/attempt.ts";

/** Where the key that went upstream came from. */
export type CredentialSource =
  | "request"
  | "byok"
  | "unified-billing"
  | "workers-ai-account"
  | "none";

/** Providers Unified Billing pays for: the config's list, so validate and the emulator agree. */
export { unifiedBillingProviders };

/** The key stored for a provider and alias on the call's gateway, if there is one. */
export function storedKey(
  call: GatewayCall,
  provider: string,
  alias: string = defaultByokAlias,
): string | undefined {
  const { gateway, services } = call;
  const storeId = gateway.settings.store_id;
  if (storeId === null || gateway.providerConfigs.find(provider, alias) === undefined) {
    return undefined;
  }
  const secret = services.gateways.secrets.findByName(
    storeId,
    byokSecretName(gateway.id, provider, alias),
  );
  return secret?.scopes.includes("ai_gateway") ? secret.value : undefined;
}

/** The 400 for a provider without a stored key under an alias (code 2040, seen on Cloudflare). */
export function missingKeyError(call: GatewayCall, provider: string, alias: string) {
  return gatewayError(
    400,
    gatewayErrorCodes.byokAliasNotFound,
    missingKeyMessage(call, provider, alias),
  );
}

function missingKeyMessage(call: GatewayCall, provider: string, alias: string): string {
  const aliases = call.gateway.providerConfigs.aliases(provider);
  return `Provider '${provider}' has no BYOK credential named '${alias}'. Configured aliases: ${aliases.length > 0 ? aliases.join(", ") : "none"}`;
}

const credentialNames = new Map<string, readonly string[]>();

/** Lower-case names of the headers a provider's key travels in (`authorization`, `x-api-key`…). */
export function credentialHeaderNames(provider: string): readonly string[] {
  let names = credentialNames.get(provider);
  if (names === undefined) {
    const probe = "stepwise-credential-probe";
    // Only headers that carry the key: `authHeaders` may add others (`anthropic-version`).
    names = Object.entries(getProvider(provider).authHeaders(probe))
      .filter(([, value]) => value.includes(probe))
      .map(([name]) => name.toLowerCase());
    // Known slugs and the config's custom ones: a handful, computed once each.
    if (credentialNames.size < 1_000) credentialNames.set(provider, names);
  }
  return names;
}

/**
 * Puts the right key on upstream `headers` (lower-case names), following the precedence above,
 * and says where it came from.
 * @throws GatewayRequestError 400 (2040) when `alias` names no stored key; 400 when credentials
 *   are required and there are none; 402 (2021) when Unified Billing has no credits left.
 */
export function applyCredential(
  call: GatewayCall,
  headers: Record<string, string>,
  provider: string,
  alias: string | undefined,
): CredentialSource {
  const names = credentialHeaderNames(provider);
  const callerSentKey = names.some((name) => (headers[name] ?? "").trim() !== "");
  if (alias === undefined && callerSentKey) return "request";
  const key = storedKey(call, provider, alias ?? defaultByokAlias);
  if (key === undefined) {
    if (alias === undefined) return withoutStoredKey(call, headers, provider);
    throw new GatewayRequestError(
      400,
      gatewayErrorCodes.byokAliasNotFound,
      missingKeyMessage(call, provider, alias),
    );
  }
  putKey(headers, provider, names, key);
  return "byok";
}

/** Neither a request key nor a stored one: the account's key, Cloudflare's, or none. */
function withoutStoredKey(
  call: GatewayCall,
  headers: Record<string, string>,
  provider: string,
): CredentialSource {
  const names = credentialHeaderNames(provider);
  const { gateway, directives, services } = call;
  // Both the REST API and an authenticated gateway know the caller's account (its API token).
  const accountKnown = call.surface === "rest" || gateway.settings.authentication;
  if (provider === "workers-ai") {
    if (!accountKnown) return "none";
    putKey(headers, provider, names, workersAiAccountKey);
    return "workers-ai-account";
  }
  if (gateway.settings.byok_only || directives.noWholesale === true) {
    const why = gateway.settings.byok_only
      ? `gateway ${gateway.id} requires provider credentials (byok_only)`
      : "the request sets cf-aig-no-wholesale: true";
    throw new GatewayRequestError(
      400,
      gatewayErrorCodes.providerCredentialsRequired,
      `No credentials for provider '${provider}': ${why}. Send the provider's key on the request or store one in the gateway (BYOK).`,
    );
  }
  if (!accountKnown || !unifiedBillingProviders.has(provider)) return "none";
  if (!services.credits.hasCredit()) {
    throw new GatewayRequestError(
      402,
      gatewayErrorCodes.insufficientCredits,
      `Insufficient credits: the account has no Unified Billing credits left for ${provider}; load credits, or send or store the provider's key.`,
    );
  }
  putKey(headers, provider, names, unifiedBillingKey(provider));
  return "unified-billing";
}

function putKey(
  headers: Record<string, string>,
  provider: string,
  names: readonly string[],
  key: string,
): void {
  for (const name of names) delete headers[name];
  for (const [name, value] of Object.entries(getProvider(provider).authHeaders(key))) {
    headers[name.toLowerCase()] ??= value;
    if (names.includes(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
}

/**
 * On the REST API, a provider refusing the key (401 or 403) is answered as Cloudflare answers it
 * (changelog 2026-10-05): 401 with code 2009, or 503 when the key was Cloudflare's own (Unified
 * Billing). The provider's body is dropped.
 */
export function restCredentialRefusal(
  response: UpstreamResponse,
  credential: CredentialSource | undefined,
): UpstreamResponse {
  if (response.body.kind === "stream") response.body.abort();
  const refusal =
    credential === "unified-billing"
      ? gatewayError(
          503,
          gatewayErrorCodes.unifiedBillingRejected,
          `The provider refused Cloudflare's credentials (Unified Billing, HTTP ${response.status}); try again later, or send or store the provider's key.`,
        )
      : gatewayError(
          401,
          gatewayErrorCodes.unauthorized,
          `The provider rejected the credentials (HTTP ${response.status}): check the key sent on the request or stored in the gateway (BYOK).`,
        );
  return jsonUpstreamResponse(refusal.status, refusal.body);
}
