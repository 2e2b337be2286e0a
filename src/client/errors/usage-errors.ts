/**
 * @module
 * Errors about how the client is used: an unknown route ({@link UnknownRouteError}) and options
 * the client cannot work with ({@link InvalidOptionsError}, thrown before anything is sent).
 */

import { GatewayError } from "./gateway-error.ts";

/** The call named a route the client was not given. Code `unknown_route`. */
export class UnknownRouteError extends GatewayError {
  static override readonly kind: string = "stepwise.UnknownRouteError";
  readonly route: string;

  constructor({
    route,
    knownRoutes,
  }: { readonly route: string; readonly knownRoutes: readonly string[] }) {
    const known = knownRoutes.length === 0 ? "none" : knownRoutes.join(", ");
    super({
      code: "unknown_route",
      message:
        `Unknown route "${route}". Known routes: ${known}. Pass routes to createGatewayClient, ` +
        "e.g. routes: config.gateways[0].routes, or inline: { default: { steps: [...] } }.",
      isRetryable: false,
    });
    this.name = "UnknownRouteError";
    this.route = route;
  }
}

/**
 * Options the client cannot work with: thrown by `createGatewayClient` for bad client options,
 * and by a call for bad call options, before anything is sent. Code `invalid_options`.
 */
export class InvalidOptionsError extends GatewayError {
  static override readonly kind: string = "stepwise.InvalidOptionsError";

  constructor({ message, cause }: { readonly message: string; readonly cause?: unknown }) {
    super({ code: "invalid_options", message, isRetryable: false, cause });
    this.name = "InvalidOptionsError";
  }
}
