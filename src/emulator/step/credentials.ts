/**
 * @module
 * Which provider key goes upstream (BYOK). A gateway stores keys as Secrets Store secrets named
 * `{gateway}_{provider}_{alias}` in its store (`store_id`), each listed in its provider configs;
 * a request picks an alias with `cf-aig-byok-alias` (else `default`).
 *
 * Precedence (Cloudflare documents none; the emulator's choice, listed in docs/emulator.md):
 * an alias the request names explicitly wins and must exist (else 400, code 2040); otherwise a key
 * the caller sent in the provider's own auth header is used as sent; otherwise the stored
 * `default` key is injected. Dynamic routes use stored keys only (see
 * `dynamic-routes/run-route.ts`).
 */
import { getProvider } from "../../providers/index.ts";
import { GatewayRequestError, gatewayError, gatewayErrorCodes } from "../errors.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import { byokSecretName, defaultByokAlias } from "../state/provider-configs.ts";

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
 * Puts the right key on upstream `headers` (lower-case names), following the precedence above.
 * @throws GatewayRequestError 400 (2040) when `alias` names no stored key.
 */
export function applyCredential(
  call: GatewayCall,
  headers: Record<string, string>,
  provider: string,
  alias: string | undefined,
): void {
  const names = credentialHeaderNames(provider);
  const callerSentKey = names.some((name) => (headers[name] ?? "").trim() !== "");
  if (alias === undefined && callerSentKey) return;
  const key = storedKey(call, provider, alias ?? defaultByokAlias);
  if (key === undefined) {
    if (alias === undefined) return;
    throw new GatewayRequestError(
      400,
      gatewayErrorCodes.byokAliasNotFound,
      missingKeyMessage(call, provider, alias),
    );
  }
  for (const name of names) delete headers[name];
  for (const [name, value] of Object.entries(getProvider(provider).authHeaders(key))) {
    headers[name.toLowerCase()] ??= value;
    if (names.includes(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
}
