/**
 * @module
 * Per-app allow-lists (issue #23): the gateways, routes and providers an app may use, set by the
 * admin in the app's record (`POST /app-tokens` with `allow: { gateways, routes, providers }`). A
 * list left out does not restrict. A call outside them is a 403 `not_allowed` before anything is
 * read or counted for it.
 *
 * - `gateways`: the gateway of the call's path.
 * - `providers`: every provider the call names (each universal step's, the compat model's, the
 *   provider-native path's). A dynamic route picks its providers inside the gateway, where the
 *   Worker cannot see them: with `providers` set, an app calls `dynamic/<route>` only when
 *   `routes` names that route.
 * - `routes`: the route the call is for — a compat model's `dynamic/<route>`, or the `route`
 *   entry of its `cf-aig-metadata` (what Stepwise's client sends). With `routes` set, a call that
 *   names no route is refused: the Worker cannot tell which route it belongs to.
 */
import { WorkerError } from "../errors.ts";
import type { StoredAppToken } from "../key-layout.ts";

/** Route names as the config writes them; anything else is not echoed. */
const routeNamePattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** @throws {WorkerError} 403 `not_allowed` when the app may not use the gateway. */
export function checkGateway(app: StoredAppToken, gatewayId: string): void {
  const allowed = app.allow?.gateways;
  if (allowed !== undefined && !allowed.includes(gatewayId)) {
    throw notAllowed(app, `gateway ${gatewayId}`, "gateways");
  }
}

/**
 * @param route the route the call names (its metadata `route`, or a dynamic route's name), null
 * for none.
 * @throws {WorkerError} 403 `not_allowed` when the app may not call that route.
 */
export function checkRoute(app: StoredAppToken, route: string | null, dynamic: boolean): void {
  const allowed = app.allow?.routes;
  const named = route !== null && routeNamePattern.test(route) ? `route ${route}` : "this route";
  if (allowed !== undefined) {
    if (route === null) throw notAllowed(app, "calls that name no route", "routes");
    if (!allowed.includes(route)) throw notAllowed(app, named, "routes");
    return;
  }
  if (dynamic && app.allow?.providers !== undefined) {
    throw notAllowed(
      app,
      `dynamic ${named} (its providers are the gateway's choice, and this app's providers are limited)`,
      "routes",
    );
  }
}

/** @throws {WorkerError} 403 `not_allowed` naming the first provider the app may not use. */
export function checkProviders(app: StoredAppToken, providers: readonly string[]): void {
  const allowed = app.allow?.providers;
  if (allowed === undefined) return;
  const refused = providers.find((provider) => !allowed.includes(provider));
  if (refused === undefined) return;
  const named = /^[a-z0-9-]{1,64}$/.test(refused) ? `provider ${refused}` : "this provider";
  throw notAllowed(app, named, "providers");
}

function notAllowed(
  app: StoredAppToken,
  what: string,
  list: "gateways" | "routes" | "providers",
): WorkerError {
  const allowed = app.allow?.[list];
  const holds =
    allowed === undefined ? "" : ` (its record allows ${list} ${allowed.join(", ") || "none"})`;
  return new WorkerError({
    status: 403,
    code: "not_allowed",
    message: `App ${app.name} may not use ${what}${holds}; an admin can create a token whose allow.${list} includes it (POST /app-tokens).`,
  });
}
