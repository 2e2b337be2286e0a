/**
 * @module
 * `ByokProviderConfig`: one AI Gateway provider config (BYOK: which stored key a gateway uses for
 * a provider, by alias). `@pulumi/cloudflare` 6.22.1 has no resource for
 * `/ai-gateway/gateways/{id}/provider_configs`, so this is a Pulumi dynamic resource whose
 * provider calls the official `cloudflare` SDK (`aiGateway.providerConfigs`).
 *
 * Why a dynamic resource rather than a documented manual step: the config lives in the stack's
 * state beside the secret it points at, `pulumi up` creates it after its secret and replaces it
 * when the secret or alias changes, and `pulumi destroy` removes it — no step to forget, and
 * preview shows it. Limits: the SDK has only `create` and `list`; delete uses the same path with
 * `DELETE` (Cloudflare's API reference lists it; a 404 counts as already gone), and every change
 * is a replacement (there is no update call in the SDK).
 *
 * The provider is serialized into the state by Pulumi, so it captures nothing but the SDK module
 * (loaded with `require`, which Pulumi serializes as `require("cloudflare")`).
 */
import * as pulumi from "@pulumi/pulumi";
import { expectCloudflareSdk, optionalCloudflareSdk } from "./cloudflare-sdk.ts";

const cloudflareSdk = optionalCloudflareSdk()!;

/** What a provider config is made from. */
export interface ByokProviderConfigArgs {
  /** Cloudflare account id. Required. */
  readonly accountId: pulumi.Input<string>;
  /** The gateway (its output, so the config waits for the gateway). Required. */
  readonly gatewayId: pulumi.Input<string>;
  /** Provider slug, e.g. `anthropic`. Required. */
  readonly providerSlug: pulumi.Input<string>;
  /** Alias requests select with `cf-aig-byok-alias`. Default: `default`. */
  readonly alias?: pulumi.Input<string>;
  /** The Secrets Store secret (named `{gateway}_{provider}_{alias}`) holding the key. Required. */
  readonly secretId: pulumi.Input<string>;
  /** Whether this is the provider's default config. Default: true when the alias is `default`. */
  readonly defaultConfig?: pulumi.Input<boolean>;
  /** API token with AI Gateway Edit and Secrets Store Edit. Default: `$CLOUDFLARE_API_TOKEN`. */
  readonly apiToken?: pulumi.Input<string>;
  /** API base URL. Default: the SDK's (`https://api.cloudflare.com/client/v4`). */
  readonly baseUrl?: pulumi.Input<string>;
}

/** The inputs as the provider receives them (resolved). */
export interface ProviderConfigInputs {
  readonly accountId: string;
  readonly gatewayId: string;
  readonly providerSlug: string;
  readonly alias: string;
  readonly secretId: string;
  readonly defaultConfig: boolean;
  readonly apiToken?: string;
  readonly baseUrl?: string;
}

/** Inputs whose change needs a new provider config (there is no update call). */
const replacingInputs = [
  "accountId",
  "gatewayId",
  "providerSlug",
  "alias",
  "secretId",
  "defaultConfig",
] as const;

/** The dynamic provider; exported for tests, which call it against msw or the emulator. */
export const providerConfigProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: ProviderConfigInputs) {
    const client = new cloudflareSdk.Cloudflare({
      ...(inputs.apiToken ? { apiToken: inputs.apiToken } : {}),
      ...(inputs.baseUrl ? { baseURL: inputs.baseUrl } : {}),
    });
    const created = await client.aiGateway.providerConfigs.create(inputs.gatewayId, {
      account_id: inputs.accountId,
      alias: inputs.alias,
      default_config: inputs.defaultConfig,
      provider_slug: inputs.providerSlug,
      secret_id: inputs.secretId,
    });
    return { id: created.id, outs: { ...inputs, modifiedAt: created.modified_at } };
  },

  async diff(_id: string, olds: ProviderConfigInputs, news: ProviderConfigInputs) {
    const replaces = replacingInputs.filter((name) => olds[name] !== news[name]);
    const moved = olds.baseUrl !== news.baseUrl;
    return {
      changes: replaces.length > 0 || moved,
      replaces: [...replaces],
      // One config per provider and alias: the old one goes before its replacement comes.
      deleteBeforeReplace: true,
    };
  },

  async update(_id: string, _olds: ProviderConfigInputs, news: ProviderConfigInputs) {
    // Only inputs that change nothing at Cloudflare (token, base URL) get here.
    return { outs: news };
  },

  async delete(id: string, props: ProviderConfigInputs) {
    const client = new cloudflareSdk.Cloudflare({
      ...(props.apiToken ? { apiToken: props.apiToken } : {}),
      ...(props.baseUrl ? { baseURL: props.baseUrl } : {}),
    });
    try {
      await client.delete(
        `/accounts/${props.accountId}/ai-gateway/gateways/${props.gatewayId}/provider_configs/${id}`,
      );
    } catch (error) {
      if (!(error instanceof cloudflareSdk.NotFoundError)) throw error;
    }
  },
};

export class ByokProviderConfig extends pulumi.dynamic.Resource {
  /** The provider slug. */
  declare readonly providerSlug: pulumi.Output<string>;
  /** The alias requests select it by. */
  declare readonly alias: pulumi.Output<string>;
  /** The secret it points at. */
  declare readonly secretId: pulumi.Output<string>;

  constructor(name: string, args: ByokProviderConfigArgs, opts?: pulumi.CustomResourceOptions) {
    expectCloudflareSdk(cloudflareSdk, "ByokProviderConfig (a BYOK provider config)");
    const alias = args.alias ?? "default";
    const inputs: Record<keyof ProviderConfigInputs, pulumi.Input<unknown> | undefined> = {
      accountId: args.accountId,
      gatewayId: args.gatewayId,
      providerSlug: args.providerSlug,
      alias,
      secretId: args.secretId,
      defaultConfig:
        args.defaultConfig ?? pulumi.output(alias).apply((value) => value === "default"),
      apiToken: args.apiToken === undefined ? undefined : pulumi.secret(args.apiToken),
      baseUrl: args.baseUrl,
    };
    super(providerConfigProvider, name, inputs, opts, "stepwise", "ByokProviderConfig");
  }
}
