/**
 * @module
 * The errors of the provider layer, in one import: `UnknownProviderError` (a slug that is no
 * provider; it lives with the catalog, which a client needs without any adapter) and
 * `ProviderResponseError` (a 2xx body an adapter cannot read; it lives with the body readers).
 * Both extend `StepwiseError`, so callers can switch on `code` and use `isInstance` across
 * package copies.
 */

export { ProviderResponseError, type ProviderResponseErrorOptions } from "./json.ts";
export { UnknownProviderError, type UnknownProviderErrorOptions } from "./unknown-provider.ts";
