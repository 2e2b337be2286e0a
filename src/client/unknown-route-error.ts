/**
 * @module
 * The error of a call that names a route its client was not given. It is not in `call-errors.ts`
 * (whose errors every client loads before its first call) because only `settings.ts`, loaded by
 * a wrong call, throws it; `stepwise-gateway/client/errors` exports it.
 */

import { GatewayError } from "./call-errors.ts";

/** The call named a route the client was not given. Code `unknown_route`. */
export class UnknownRouteError extends GatewayError {
  static override readonly kind: string = "stepwise.UnknownRouteError";
  declare readonly route: string;

  constructor({
    route,
    knownRoutes,
  }: { readonly route: string; readonly knownRoutes: readonly string[] }) {
    super({
      code: "unknown_route",
      message:
        `Unknown route "${route}". Known routes: ${knownRoutes.join(", ") || "none"} (from the ` +
        "routes given to createGatewayClient).",
      isRetryable: false,
    });
    this.route = route;
  }
}
