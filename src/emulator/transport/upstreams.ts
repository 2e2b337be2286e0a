/**
 * @module
 * Where each provider's requests go: a base URL per provider slug (a mock provider's, or one
 * given with `--upstream provider=url`), the endpoint path under it, and the headers forwarded.
 */
import { isKnownProvider, upstreamBaseUrlOf } from "../../providers/index.ts";
import { GatewayRequestError } from "../errors.ts";
import type { ResponseHeaders } from "./attempt.ts";

/** Request headers the gateway never forwards: hop-by-hop, its own, and ones it sets itself. */
const droppedRequestHeaders = new Set([
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "content-length",
  "accept-encoding",
  "expect",
]);

/** Upstream response headers not passed to the client (the emulator re-frames the body). */
const droppedResponseHeaders = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "trailer",
  "upgrade",
]);

export class UpstreamRegistry {
  readonly #baseUrls: ReadonlyMap<string, string>;

  /** `baseUrls`: provider slug → base URL (a trailing `/` is added when missing). */
  constructor(baseUrls: Readonly<Record<string, string>>) {
    this.#baseUrls = new Map(
      Object.entries(baseUrls).map(([slug, url]) => [slug, url.endsWith("/") ? url : `${url}/`]),
    );
  }

  /** Every provider with an upstream, and its base URL. */
  entries(): [string, string][] {
    return [...this.#baseUrls.entries()];
  }

  /**
   * The upstream URL of a provider endpoint (path under the provider, may carry `?query`).
   * @throws GatewayRequestError 400 for an unknown provider, one without an upstream, or a path
   * that tries to leave the provider's base (`..`).
   */
  url(provider: string, endpoint: string): string {
    if (!isKnownProvider(provider)) {
      throw GatewayRequestError.invalid(
        `Unknown provider "${provider}": use a provider slug such as openai, anthropic, workers-ai, google-ai-studio, or custom-<slug>.`,
      );
    }
    const base = this.#baseUrls.get(provider);
    if (base === undefined) {
      throw GatewayRequestError.invalid(
        `Provider "${provider}" has no upstream in this emulator; start it with --upstream ${provider}=<url>.`,
      );
    }
    const path = normaliseEndpoint(provider, endpoint);
    return base + path;
  }
}

/** A `.` or `..` path segment. */
const dotSegment = /(?:^|\/)\.{1,2}(?:\/|$)/;
/** Whether a text holds a space or a control character (U+0000 to U+0020). */
function hasSpaceOrControl(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    if (text.charCodeAt(index) <= 0x20) return true;
  }
  return false;
}

/**
 * The endpoint path relative to the provider's base. A leading `/` is dropped, and for providers
 * whose real base already ends in `/v1/` (OpenAI, Groq) a leading `v1/` is dropped too, since
 * Cloudflare accepts both `openai/chat/completions` and `openai/v1/chat/completions`.
 */
export function normaliseEndpoint(provider: string, endpoint: string): string {
  let path = endpoint.replace(/^\/+/, "");
  const query = path.indexOf("?");
  if (dotSegment.test(query === -1 ? path : path.slice(0, query))) {
    throw GatewayRequestError.invalid(
      `Endpoint "${endpoint.slice(0, 200)}" for ${provider} must not contain "." or ".." segments.`,
    );
  }
  if (hasSpaceOrControl(path)) {
    throw GatewayRequestError.invalid(`Endpoint for ${provider} must not contain whitespace.`);
  }
  if (path.startsWith("v1/") && isKnownProvider(provider)) {
    if (upstreamBaseUrlOf(provider).endsWith("/v1/")) path = path.slice(3);
  }
  return path;
}

/** The headers to send upstream: the caller's, minus hop-by-hop and `cf-aig-*` ones. */
export function forwardedHeaders(
  source: Iterable<readonly [string, string]>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [rawName, value] of source) {
    const name = rawName.toLowerCase();
    if (droppedRequestHeaders.has(name) || name.startsWith("cf-aig-")) continue;
    if (name === "cf-cache-ttl" || name === "cf-skip-cache") continue;
    headers[name] = value;
  }
  headers["accept-encoding"] = "identity";
  return headers;
}

/** The upstream response headers to pass to the client. */
export function passedResponseHeaders(headers: ResponseHeaders): (readonly [string, string])[] {
  return headers.filter(
    ([name]) => !droppedResponseHeaders.has(name) && !name.startsWith("cf-aig-"),
  );
}
