/**
 * @module
 * The options of `startEmulator` and the handle it returns.
 */
import type { StepwiseConfig } from "../config/index.ts";
import type { CreditBalance } from "./features/credits.ts";
import type { GatewayLogRecord } from "./features/log-store.ts";
import type { ResponseCache } from "./features/response-cache.ts";
import type { FaultSchedule, MockProviders } from "./mocks/index.ts";
import type { GatewayStore } from "./state/gateway-store.ts";

/** The gateway token used when neither the options nor the config give a plain one. */
export const defaultGatewayToken = "stepwise-dev-token";

/** The key stored for a config BYOK provider when neither the options nor the config give one. */
export function placeholderByokKey(provider: string): string {
  return `stepwise-dev-byok-${provider}`;
}

/**
 * The key the emulator sends for Unified Billing, standing for Cloudflare's own provider key.
 * The started mock providers accept it (unless they were started with `mockKeys`).
 */
export function unifiedBillingKey(provider: string): string {
  return `stepwise-unified-billing-${provider}`;
}

/** The key the gateway sends Workers AI for an authenticated caller's account (Workers AI bills the account). */
export const workersAiAccountKey = "stepwise-workers-ai-account";

/**
 * Log records kept per gateway when `logCapacity` is not given (`stepwise dev --log-capacity`):
 * the ring buffer's size, whatever the gateway's own log limit. A record takes about 0.5 KB of
 * heap (bodies apart, at most 32 MiB a gateway), so a gateway's logs stay under some 40 MB; with
 * 100,000 the emulator's resident memory passed 550 MB under sustained load (V8 lets the heap
 * grow to several times what is live), with 10,000 it stays near 210 MB (BENCHMARKS.md).
 */
export const defaultLogCapacity = 10_000;

/** The default request timeout (to first byte) when no step, header or node sets one, in ms. */
export const defaultRequestTimeoutMs = 120_000;

export interface EmulatorOptions {
  /** The parsed Stepwise config: its gateways, routes and model prices are served. */
  readonly config: StepwiseConfig;
  /**
   * Upstream base URL per provider slug, e.g. `{ openai: "http://127.0.0.1:9101/" }`. Providers
   * without an override are served by mock providers the emulator starts (unless `mocks: false`).
   */
  readonly upstreams?: Readonly<Record<string, string>>;
  /** Start mock providers for providers without an override; default true. */
  readonly mocks?: boolean;
  /** Fault schedule for the started mock providers. */
  readonly faults?: FaultSchedule;
  /** Accepted keys per provider for the started mock providers (any non-empty key otherwise). */
  readonly mockKeys?: Readonly<Record<string, readonly string[]>>;
  /**
   * The keys stored (BYOK) for the providers each config gateway lists under `byok.providers`,
   * by provider. Default: the config's plain-text `byokKeys`, else a placeholder
   * (`stepwise-dev-byok-<provider>`) that the started mock providers accept. Keys can be added or
   * overwritten later through the REST API (Secrets Store secrets and provider configs).
   */
  readonly byokKeys?: Readonly<Record<string, string>>;
  /**
   * Today's permissive mode instead of Cloudflare's rules: dynamic routes run on any gateway and
   * send the caller's `Authorization` key when no key is stored. Default false.
   */
  readonly lenient?: boolean;
  /** Port to listen on; 0 (default) picks a free one. */
  readonly port?: number;
  /** Always loopback. */
  readonly host?: "127.0.0.1";
  /**
   * The token `cf-aig-authorization: Bearer <token>` must carry on authenticated gateways.
   * Default: the config's `gatewayToken` when it is plain text, else {@link defaultGatewayToken}.
   */
  readonly gatewayToken?: string;
  /** Clock (epoch ms) for cache TTLs, rate-limit windows, spend windows, log times and ids. */
  readonly now?: () => number;
  /** Delay used between retries (backoff); tests pass a fake that advances their clock. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Id generator for log/request/route ids; lowercase UUIDv7 by the clock by default. */
  readonly generateId?: () => string;
  /** Randomness in [0, 1) for percentage splits; `Math.random` by default. */
  readonly random?: () => number;
  /**
   * A `fetch` to call upstreams with instead of the default transport (`node:http` with
   * keep-alive agents); tests inject one to script upstream answers without servers.
   */
  readonly fetch?: typeof globalThis.fetch;
  /** Time to first byte when nothing else sets a timeout; default 120000 ms. */
  readonly defaultTimeoutMs?: number;
  /**
   * Which upstream statuses fail a step (retry, then fall back): `retryable` (default: 429 and
   * 5xx, plus network errors and timeouts) or `any-error` (every non-2xx).
   */
  readonly failOn?: "retryable" | "any-error";
  /**
   * Most log records kept per gateway, whatever its own limit: a ring buffer, the oldest record
   * overwritten past it (the memory bound). Default {@link defaultLogCapacity}.
   */
  readonly logCapacity?: number;
  /** Cache bounds; default 1000 entries and 64 MiB. */
  readonly cacheMaxEntries?: number;
  readonly cacheMaxBytes?: number;
  /**
   * The account's Unified Billing credits in USD, spent by calls the gateway pays with
   * Cloudflare's key (no key on the request or stored); past zero such calls get 402 (code 2021).
   * Default: `Infinity` (never runs out).
   */
  readonly credits?: number;
  /** Receives unexpected errors (bugs); `console.error` by default. */
  readonly onError?: (error: unknown) => void;
}

/** A running emulator. */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  readonly port: number;
  readonly accountId: string;
  /** The REST base for the `cloudflare` SDK's `baseURL`: `{url}/client/v4`. */
  readonly restUrl: string;
  /** The upstream base URL of every provider. */
  readonly upstreams: Readonly<Record<string, string>>;
  /** The mock providers the emulator started, if any. */
  readonly mocks: MockProviders | undefined;
  /** The token authenticated gateways expect in `cf-aig-authorization`. */
  readonly gatewayToken: string;
  /** `{url}/v1/{account}/{gateway}`: the universal endpoint and provider-native base. */
  gatewayUrl(gatewayId: string): string;
  /** `{url}/v1/{account}/{gateway}/compat`: the OpenAI SDK's `baseURL` for the compat endpoint. */
  compatUrl(gatewayId: string): string;
  /** A gateway's log records, oldest first (empty for an unknown gateway). */
  logs(gatewayId: string): GatewayLogRecord[];
  /** `{url}/client/v4/accounts/{account}/ai/v1`: the OpenAI and Anthropic SDKs' `baseURL` for the REST API. */
  readonly aiUrl: string;
  /** Live state, for tests and tools. */
  readonly state: {
    readonly gateways: GatewayStore;
    readonly cache: ResponseCache;
    readonly credits: CreditBalance;
  };
  /** Stops the server, aborts in-flight upstream requests and stops the mocks it started. */
  close(): Promise<void>;
}
