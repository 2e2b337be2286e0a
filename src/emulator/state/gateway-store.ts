/**
 * @module
 * Every gateway the emulator serves, with its live settings and its own state: logs, rate limit
 * counts, spend, dynamic routes. Gateways come from the config at start and can then be created,
 * replaced and deleted through the REST API; a replaced gateway keeps its logs and routes, and
 * the new settings apply to the next request.
 */
import type { GatewayConfig, RouteConfig } from "../../config/index.ts";
import { compileDynamicRoute, isDynamicRoute } from "../../routes/index.ts";
import { LogStore } from "../features/log-store.ts";
import type { ResponseCache } from "../features/response-cache.ts";
import { SpendTracker } from "../features/spend-limits.ts";
import { WindowCounter } from "../features/window-counter.ts";
import { DatasetStore } from "./datasets.ts";
import {
  defaultGatewaySettings,
  type GatewaySettings,
  type GatewayUpdateBody,
  settingsFromBody,
  settingsFromConfig,
} from "./gateway-settings.ts";
import { byokSecretName, defaultByokAlias, ProviderConfigStore } from "./provider-configs.ts";
import { RouteStore } from "./route-store.ts";
import { SecretsStore } from "./secrets-store.ts";

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
  /** BYOK: which provider keys (by alias) the gateway uses; the keys are in the Secrets Store. */
  readonly providerConfigs = new ProviderConfigStore();
  readonly datasets = new DatasetStore();

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
    // Only routes deployed as dynamic routes exist as `dynamic/<route>` (as on Cloudflare).
    for (const [name, route] of Object.entries(configRoutes)) {
      if (isDynamicRoute(route)) this.routes.create(name, compileDynamicRoute(route));
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
  /** The key stored for a BYOK provider of the config at start. */
  readonly byokKey: (provider: string) => string;
}

export class GatewayStore {
  readonly #gateways = new Map<string, GatewayState>();
  readonly #tools: StoreTools;
  /** The account's Secrets Store (BYOK keys of every gateway). */
  readonly secrets: SecretsStore;

  constructor(gateways: readonly GatewayConfig[], tools: StoreTools) {
    this.#tools = tools;
    this.secrets = new SecretsStore(tools.generateId, tools.time);
    const time = tools.time();
    for (const gateway of gateways) {
      const state = new GatewayState(settingsFromConfig(gateway, time), gateway.routes, tools);
      this.#gateways.set(gateway.id, state);
      this.#storeKeys(state, gateway.byok?.providers ?? []);
    }
  }

  /**
   * Stores a config gateway's BYOK keys the way Pulumi provisions them: one store for the
   * account, a secret `{gateway}_{provider}_default` (scope `ai_gateway`) and a provider config
   * per provider, and the gateway's `store_id`.
   */
  #storeKeys(state: GatewayState, providers: readonly string[]): void {
    if (providers.length === 0) return;
    const store = this.secrets.listStores()[0] ?? this.secrets.createStore("stepwise");
    state.settings.store_id = store.id;
    for (const provider of providers) {
      const secret = this.secrets.createSecret(store.id, {
        name: byokSecretName(state.id, provider, defaultByokAlias),
        value: this.#tools.byokKey(provider),
        scopes: ["ai_gateway"],
        comment: `${provider} key for ${state.id} (from the Stepwise config)`,
      });
      state.providerConfigs.put({
        id: this.#tools.generateId().toLowerCase(),
        alias: defaultByokAlias,
        default_config: true,
        gateway_id: state.id,
        modified_at: this.#tools.time(),
        provider_slug: provider,
        secret_id: secret.id,
      });
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
    // The BYOK store stays unless the body names another (or null): a settings update that
    // leaves store_id out does not unplug the gateway's keys (the emulator's choice).
    if (!("store_id" in body)) state.settings.store_id = previous.store_id;
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
