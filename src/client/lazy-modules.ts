/**
 * @module
 * The client's code that loads on first use, each module behind one {@link Lazy} handle: what a
 * call does after a failure, recording, the checks of call options, a route's policy, prices, and
 * the stream reader. `createGatewayClient` starts loading some of them early (failover always,
 * recording with a recorder, prices with prices), so that a call does not wait for them.
 */

/**
 * A module loaded once, on first use; from then on `loaded` holds it, so a call takes it without
 * waiting (an `import()` of a loaded module still costs a trip through the module loader).
 */
export interface Lazy<T> {
  loaded?: T;
  load(): Promise<T>;
}

/** Wraps a dynamic import as a {@link Lazy} module. */
export function lazy<T>(importer: () => Promise<T>): Lazy<T> {
  let pending: Promise<T> | undefined;
  const module: Lazy<T> = {
    load: () => {
      pending ??= importer().then((loaded) => (module.loaded = loaded));
      return pending;
    },
  };
  return module;
}

/** What a call does after a failure; `createGatewayClient` starts loading it early. */
export const failoverModule = lazy(() => import("./failover.ts"));
/** Building the call's event, when the client has a recorder; loaded early too. */
export const recordModule = lazy(() => import("./record.ts"));
/** The checks of call options and gateway settings, for a call that sets any, or is wrong. */
export const settingsModule = lazy(() => import("./settings.ts"));
/** A route's policy and a scorer's metadata, for calls that have either. */
export const policyModule = lazy(() => import("./call-policy.ts"));
/** Prices and model names: for a client with prices, or a dynamic answer that names no step. */
export const costModule = lazy(() => import("../providers/cost.ts"));
/** Reading streams: the SSE parser, each provider's stream format, the queue of deltas. */
export const readerModule = lazy(() => import("./stream-reader.ts"));
