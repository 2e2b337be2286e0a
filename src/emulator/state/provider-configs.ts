/**
 * @module
 * A gateway's BYOK provider configs (`/gateways/{id}/provider_configs`): which provider keys the
 * gateway uses, each by `provider_slug` and `alias` (`default` unless a request names another with
 * `cf-aig-byok-alias`). The key itself is the Secrets Store secret named
 * `{gateway}_{provider}_{alias}` in the gateway's store; a config whose secret is missing supplies
 * no key.
 */

/** The Secrets Store secret name AI Gateway looks a key up by: `{gateway}_{provider}_{alias}`. */
export function byokSecretName(gatewayId: string, provider: string, alias: string): string {
  return `${gatewayId}_${provider}_${alias}`;
}

/** The alias used when a request names none. */
export const defaultByokAlias = "default";

export interface ProviderConfigRecord {
  readonly id: string;
  readonly alias: string;
  readonly default_config: boolean;
  readonly gateway_id: string;
  readonly modified_at: string;
  readonly provider_slug: string;
  readonly secret_id: string;
  readonly rate_limit?: number;
  readonly rate_limit_period?: number;
}

/**
 * A config as the API shows it. `secret_preview` never shows any part of the key (the emulator's
 * choice: Cloudflare's preview format is not documented, and Stepwise never returns a key).
 */
export function providerConfigJson(config: ProviderConfigRecord) {
  return { ...config, secret_preview: "********" };
}

export class ProviderConfigStore {
  readonly #configs = new Map<string, ProviderConfigRecord>();

  list(): ProviderConfigRecord[] {
    return [...this.#configs.values()];
  }

  get(id: string): ProviderConfigRecord | undefined {
    return this.#configs.get(id);
  }

  find(provider: string, alias: string): ProviderConfigRecord | undefined {
    return this.list().find(
      (config) => config.provider_slug === provider && config.alias === alias,
    );
  }

  /** Aliases configured for a provider, for error messages. */
  aliases(provider: string): string[] {
    return this.list()
      .filter((config) => config.provider_slug === provider)
      .map((config) => config.alias);
  }

  /** Adds a config, replacing one with the same provider and alias. */
  put(config: ProviderConfigRecord): ProviderConfigRecord {
    const existing = this.find(config.provider_slug, config.alias);
    if (existing) this.#configs.delete(existing.id);
    this.#configs.set(config.id, config);
    return config;
  }

  delete(id: string): boolean {
    return this.#configs.delete(id);
  }
}
