/**
 * @module
 * Header surgery for the proxy: which headers may carry a secret (and are always removed from
 * what the app sent), and how a provider's key goes in (through the provider adapter, so each
 * provider gets its own header: `authorization`, `x-api-key`, `x-goog-api-key`…).
 */
import { getProvider, providerSlugs } from "../../providers/index.ts";
import { requestedEncoding } from "./content-encoding.ts";

/** Header names that carry credentials in any provider's or the gateway's form. */
export function secretHeaderNames(): ReadonlySet<string> {
  // Derived from the provider registry alone, so it is worked out once per isolate.
  secretNames ??= collectSecretHeaderNames();
  return secretNames;
}

let secretNames: ReadonlySet<string> | undefined;

function collectSecretHeaderNames(): Set<string> {
  const names = new Set([
    "authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "cf-aig-authorization",
    "cookie",
  ]);
  const probe = "stepwise-probe-value";
  for (const slug of providerSlugs) {
    for (const [name, value] of Object.entries(getProvider(slug).authHeaders(probe))) {
      if (value.includes(probe)) names.add(name.toLowerCase());
    }
  }
  return names;
}

/** Headers Cloudflare's edge adds to an incoming request; never forwarded. */
const edgeHeaders =
  /^(?:host|content-length|connection|keep-alive|transfer-encoding|cf-connecting-ip|cf-ipcountry|cf-ray|cf-visitor|cf-worker|cf-ew-via|cdn-loop|x-forwarded-.*|x-real-ip|true-client-ip)$/i;

/**
 * The headers to send upstream: the app's headers without credentials or edge headers, plus the
 * gateway token when one is set, asking for an unencoded answer.
 */
export function upstreamHeaders(incoming: Headers, gatewayToken: string | undefined): Headers {
  const secret = secretHeaderNames();
  const headers = new Headers();
  for (const [name, value] of incoming) {
    if (secret.has(name.toLowerCase()) || edgeHeaders.test(name)) continue;
    headers.set(name, value);
  }
  if (gatewayToken !== undefined) headers.set("cf-aig-authorization", `Bearer ${gatewayToken}`);
  // The answer must come back in a form the scrubber can read, whatever the app accepts.
  headers.set("accept-encoding", requestedEncoding);
  return headers;
}

/**
 * One universal step's headers: the app's step headers without credentials, the provider's
 * default headers where the app set none, and the provider's auth headers for `key` (when the
 * Worker holds one; BYOK providers get none and the gateway adds its stored key).
 */
export function stepHeaders(
  given: Readonly<Record<string, string>> | undefined,
  provider: string,
  key: string | undefined,
): Record<string, string> {
  const secret = secretHeaderNames();
  const adapter = getProvider(provider);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given ?? {})) {
    if (!secret.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  for (const [name, value] of Object.entries(adapter.defaultHeaders ?? {})) {
    headers[name.toLowerCase()] ??= value;
  }
  if (key !== undefined) {
    for (const [name, value] of Object.entries(adapter.authHeaders(key))) {
      headers[name.toLowerCase()] = value;
    }
  }
  return headers;
}

/** Adds a provider's auth headers for `key` to a provider-native request's headers. */
export function addProviderAuth(headers: Headers, provider: string, key: string | undefined): void {
  const adapter = getProvider(provider);
  for (const [name, value] of Object.entries(adapter.defaultHeaders ?? {})) {
    if (!headers.has(name)) headers.set(name, value);
  }
  if (key === undefined) return;
  for (const [name, value] of Object.entries(adapter.authHeaders(key))) headers.set(name, value);
}

/**
 * The app token a request carries: `cf-aig-authorization: Bearer …` (what gateway clients send,
 * including Stepwise's client given the app token as its gateway token), else
 * `Authorization: Bearer …` (OpenAI-style SDKs), else `x-api-key` (Anthropic-style SDKs).
 */
export function appTokenFrom(headers: Headers): string | undefined {
  for (const name of ["cf-aig-authorization", "authorization"]) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(headers.get(name) ?? "");
    if (match?.[1] !== undefined) return match[1];
  }
  const apiKey = headers.get("x-api-key")?.trim();
  return apiKey === undefined || apiKey === "" ? undefined : apiKey;
}
