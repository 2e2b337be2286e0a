/**
 * @module
 * Every gateway the emulator serves, with its live settings and its own state: logs, rate limit
 * counts, spend, dynamic routes. Gateways come from the config at start and can then be created,
 * replaced and deleted through the REST API; a replaced gateway keeps its logs and routes, and
 * the new settings apply to the next request.
 */
import type { GatewayConfig, RouteConfig } from "../../config/index.ts";
import { compileDynamicRoute } from "../../routes/index.ts";
import { LogStore } from "../features/log-store.ts";
import type { ResponseCache } from "../features/response-cache.ts";
import { SpendTracker } from "../features/spend-limits.ts";
import { WindowCounter } from "../features/window-counter.ts";
import {
  defaultGatewaySettings,
  type GatewaySettings,
  type GatewayUpdateBody,
  settingsFromBody,
  settingsFromConfig,
} from "./gateway-settings.ts";
import { RouteStore } from "./route-store.ts";

/** One gateway: settings plus the state its requests build up. */
export class GatewayState {
  settings: GatewaySettings;
  /** The config's routes (universal chains), by name; empty for gateways made over REST. */
  readonly configRoutes: Readonly<Record<string, RouteConfig>>;
  readonly logs: LogStore;
  readonly rateLimit = new WindowCounter({ maxKeys: 1 });
  /** Counts of dynamic-route rate nodes, keyed by route, element and metadata value. */
  readonly routeLimits = new WindowCounter();
  readonly spend = new SpendTracker();
  readonly routes: RouteStore;

  constructor(
    settings: GatewaySettings,
    configRoutes: Readonly<Record<string, RouteConfig>>,
    tools: StoreTools,
  ) {
    this.settings = settings;
    this.configRoutes = configRoutes;
    this.logs = new LogStore(
      () => ({
        limit: this.settings.log_management,
        strategy: this.settings.log_management_strategy,
      }),
      tools.logCapacity,
    );
    this.routes = new RouteStore(settings.id, tools.generateId, tools.time);
    for (const [name, route] of Object.entries(configRoutes)) {
      this.routes.create(name, compileDynamicRoute(route));
    }
  }

  get id(): string {
    return this.settings.id;
  }
}

/** What the store needs from the emulator. */
export interface StoreTools {
  readonly generateId: () => string;
  /** The current time as ISO-8601. */
  readonly time: () => string;
  /** Most log records kept per gateway, whatever the gateway's own limit. */
  readonly logCapacity: number;
  readonly cache: ResponseCache;
}

export class GatewayStore {
  readonly #gateways = new Map<string, GatewayState>();
  readonly #tools: StoreTools;

  constructor(gateways: readonly GatewayConfig[], tools: StoreTools) {
    this.#tools = tools;
    const time = tools.time();
    for (const gateway of gateways) {
      this.#gateways.set(
        gateway.id,
        new GatewayState(settingsFromConfig(gateway, time), gateway.routes, tools),
      );
    }
  }

  get(id: string): GatewayState | undefined {
    return this.#gateways.get(id);
  }

  list(): GatewayState[] {
    return [...this.#gateways.values()];
  }

  /** Creates a gateway from a validated REST body. The caller checks the id is free. */
  create(id: string, body: GatewayUpdateBody): GatewayState {
    const time = this.#tools.time();
    const state = new GatewayState(
      settingsFromBody(id, body, { created_at: time, modified_at: time }),
      {},
      this.#tools,
    );
    this.#gateways.set(id, state);
    return state;
  }

  /** The `default` gateway, created with Cloudflare's defaults when first used. */
  ensureDefault(): GatewayState {
    const existing = this.#gateways.get("default");
    if (existing) return existing;
    const state = new GatewayState(defaultGatewaySettings(this.#tools.time()), {}, this.#tools);
    this.#gateways.set("default", state);
    return state;
  }

  /** Replaces a gateway's settings (PUT is a full replace). */
  update(state: GatewayState, body: GatewayUpdateBody): GatewaySettings {
    const previous = state.settings;
    state.settings = settingsFromBody(
      state.id,
      body,
      { created_at: previous.created_at, modified_at: this.#tools.time() },
      previous.is_default,
    );
    if (previous.cache_invalidate_on_update || state.settings.cache_invalidate_on_update) {
      this.#tools.cache.purgeGateway(state.id);
    }
    if (
      previous.rate_limiting_interval !== state.settings.rate_limiting_interval ||
      previous.rate_limiting_technique !== state.settings.rate_limiting_technique
    ) {
      state.rateLimit.clear();
    }
    return state.settings;
  }

  delete(id: string): boolean {
    this.#tools.cache.purgeGateway(id);
    return this.#gateways.delete(id);
  }
}
