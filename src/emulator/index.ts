/**
 * @module
 * The local AI Gateway emulator: Cloudflare's universal, provider-native and compat endpoints,
 * dynamic routes, caching, rate and spend limits, logs, and the REST subset the `cloudflare` SDK
 * uses, served on 127.0.0.1 from a Stepwise config, in front of mock providers (or any upstream).
 * @example
 * const emulator = await startEmulator({ config });
 * const response = await fetch(emulator.gatewayUrl("chat-prod"), {
 *   method: "POST",
 *   headers: { "content-type": "application/json", "cf-aig-authorization": `Bearer ${emulator.gatewayToken}` },
 *   body: JSON.stringify(compileUniversalRequest(route, { messages })),
 * });
 * response.headers.get("cf-aig-step"); // "0", or "1" after a fallback
 * await emulator.close();
 */
export { startEmulator } from "./emulator.ts";
export {
  EmulatorError,
  type GatewayErrorResponse,
  gatewayError,
  gatewayErrorCodes,
  restErrorCodes,
} from "./errors.ts";
export type { GatewayLogRecord, LogStrategy } from "./features/log-store.ts";
export { createUlid, createUuidV7 } from "./ids.ts";
export {
  defaultGatewayToken,
  defaultRequestTimeoutMs,
  type Emulator,
  type EmulatorOptions,
} from "./options.ts";
export type { Backoff } from "./request/directives.ts";
export type { GatewaySettings } from "./state/gateway-settings.ts";
export { backoffDelay, type RetryPolicy } from "./step/retry.ts";
