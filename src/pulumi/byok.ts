/**
 * @module
 * `Byok`: provider keys kept by AI Gateway itself (bring your own keys) instead of the companion
 * Worker. Each key is a Secrets Store secret named the way the gateway looks keys up,
 * `{gateway_id}_{provider}_{alias}`, readable by AI Gateway only. One store serves every gateway:
 * Secrets Store allows one store per account during its beta. Each gateway then points at the
 * store (`storeId`) and lists its keys in provider configs (`Gateway`, `ByokProviderConfig`).
 */
import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";

/** One provider key for one gateway. */
export interface ByokKey {
  readonly gatewayId: string;
  readonly provider: string;
  /** The provider API key; keep it a Pulumi secret. */
  readonly value: pulumi.Input<string>;
  /**
   * True when the companion Worker rotates this key (it holds the provider's keys and overwrites
   * the secret after each rotation): the value is then set once, at creation, and never put back
   * by a later deploy. Default: false.
   */
  readonly rotatedByWorker?: boolean;
}

export interface ByokArgs {
  /** Cloudflare account id. Required. */
  readonly accountId: pulumi.Input<string>;
  /** The keys to store. Required (may be empty). */
  readonly keys: readonly ByokKey[];
  /** Use this existing store instead of creating one. Default: a new store. */
  readonly storeId?: pulumi.Input<string>;
  /** Name of the store created when `storeId` is not given. Default: `stepwise`. */
  readonly storeName?: pulumi.Input<string>;
  /**
   * Key alias in the secret name. Default: `default`, the one AI Gateway uses when a request
   * names no `cf-aig-byok-alias` (and the only one the compat and REST endpoints consult).
   */
  readonly alias?: string;
}

/** The Secrets Store secret name AI Gateway looks up: `{gateway}_{provider}_{alias}`. */
export function byokSecretName(gatewayId: string, provider: string, alias = "default"): string {
  return `${gatewayId}_${provider}_${alias}`;
}

export class Byok extends pulumi.ComponentResource {
  /** The store, unless an existing `storeId` was given. */
  readonly store: cloudflare.SecretsStore | undefined;
  readonly secrets: readonly cloudflare.SecretsStoreSecret[];
  /** The store the gateways point `storeId` at. */
  readonly storeId: pulumi.Output<string>;
  readonly #keys: readonly ByokKey[];

  constructor(name: string, args: ByokArgs, opts?: pulumi.ComponentResourceOptions) {
    super("stepwise:index:Byok", name, {}, opts);
    const alias = args.alias ?? "default";

    const storeArgs: cloudflare.SecretsStoreArgs = {
      accountId: args.accountId,
      name: args.storeName ?? "stepwise",
    };
    this.store =
      args.storeId === undefined
        ? new cloudflare.SecretsStore(`${name}-store`, storeArgs, { parent: this })
        : undefined;
    this.storeId = this.store ? this.store.id : pulumi.output(args.storeId as pulumi.Input<string>);

    this.#keys = args.keys;
    this.secrets = args.keys.map((key) => {
      const secretArgs: cloudflare.SecretsStoreSecretArgs = {
        accountId: args.accountId,
        storeId: this.storeId,
        name: byokSecretName(key.gatewayId, key.provider, alias),
        // The API's spelling. The provider's docs say `aiGateway` because its doc generator
        // camel-cases every snake_case word; the value is sent verbatim, and the Terraform
        // schema and the Secrets Store API both list `ai_gateway`.
        scopes: ["ai_gateway"],
        value: pulumi.secret(key.value),
        comment: `${key.provider} key for AI Gateway ${key.gatewayId} (managed by Stepwise)`,
      };
      return new cloudflare.SecretsStoreSecret(
        `${name}-${key.gatewayId}-${key.provider}`,
        secretArgs,
        { parent: this, ...(key.rotatedByWorker === true ? { ignoreChanges: ["value"] } : {}) },
      );
    });

    this.registerOutputs({
      storeId: this.storeId,
      secretNames: args.keys.map((key) => byokSecretName(key.gatewayId, key.provider, alias)),
    });
  }

  /** Provider → the id of the secret holding its key, for one gateway's provider configs. */
  secretIdsFor(gatewayId: string): Record<string, pulumi.Output<string>> {
    const ids: Record<string, pulumi.Output<string>> = {};
    this.#keys.forEach((key, index) => {
      if (key.gatewayId === gatewayId) ids[key.provider] = this.secrets[index]!.id;
    });
    return ids;
  }
}
