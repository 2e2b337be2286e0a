/**
 * @module
 * `Gateway`: one AI Gateway with every setting of its config (cache, rate limit, logs, retries,
 * authentication, spend limits, the Secrets Store for BYOK), a BYOK provider config per stored
 * key, and one dynamic route per config route deployed as one (`dynamic` is not false), compiled
 * by `compileDynamicRoute` so the deployed policy and fallback order are the config's. A route
 * with a percentage split is a `VersionedDynamicRoute` (`versioned-route.ts`), since
 * `AiGatewayDynamicRouting` has no field for split outputs. Universal-only routes deploy nothing:
 * the client sends their steps.
 */
import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import type { GatewayConfig } from "../config/index.ts";
import { compileDynamicRoute, dynamicModelName, isDynamicRoute } from "../routes/index.ts";
import {
  canonicalJson,
  expressibleInPulumi,
  routeGraphHash,
  toPulumiElements,
} from "./dynamic-route.ts";
import { gatewaySettings, ignoredGatewayFields } from "./gateway-settings.ts";
import { ByokProviderConfig } from "./provider-config.ts";
import { gatewayUrls } from "./urls.ts";
import { VersionedDynamicRoute } from "./versioned-route.ts";

export interface GatewayArgs {
  /** Cloudflare account id (32 hex characters). Required. */
  readonly accountId: pulumi.Input<string>;
  /**
   * The gateway's validated config. Plain, not an `Input`: its routes decide how many route
   * resources exist, which Pulumi must know when the program runs. Required.
   */
  readonly gateway: GatewayConfig;
  /** This gateway's stored keys (BYOK). Default: none (keys come from the Worker). */
  readonly byok?: GatewayByokArgs;
  /** API token for routes deployed through the API (splits). Default: `$CLOUDFLARE_API_TOKEN`. */
  readonly apiToken?: pulumi.Input<string>;
}

export interface GatewayByokArgs {
  /** The Secrets Store holding the keys. Required. */
  readonly storeId: pulumi.Input<string>;
  /** Provider slug → the secret (`{gateway}_{provider}_default`) holding its key. Required. */
  readonly secretIds: Readonly<Record<string, pulumi.Input<string>>>;
  /** API token for the provider-config calls. Default: `$CLOUDFLARE_API_TOKEN` when they run. */
  readonly apiToken?: pulumi.Input<string>;
}

/** What a client needs to call one route. */
export interface RouteOutputs {
  /** The route's id at Cloudflare. */
  readonly id: pulumi.Output<string>;
  /** The compat-endpoint model name that invokes it: `dynamic/<route>`. */
  readonly model: string;
}

export class Gateway extends pulumi.ComponentResource {
  /** The `cloudflare.AiGateway` resource. */
  readonly gateway: cloudflare.AiGateway;
  /**
   * One resource per dynamic route, by route name: `cloudflare.AiGatewayDynamicRouting`, or a
   * `VersionedDynamicRoute` for a graph with a percentage split (which the former cannot hold).
   */
  readonly routes: Readonly<
    Record<string, cloudflare.AiGatewayDynamicRouting | VersionedDynamicRoute>
  >;
  /** One BYOK provider config per stored key, by provider. */
  readonly providerConfigs: Readonly<Record<string, ByokProviderConfig>>;
  /** `https://gateway.ai.cloudflare.com/v1/{account}/{gateway}`: the universal endpoint. */
  readonly universalUrl: pulumi.Output<string>;
  /** The OpenAI-compatible base URL (`…/compat`), for the OpenAI SDK's `baseURL`. */
  readonly compatUrl: pulumi.Output<string>;
  readonly routeOutputs: Readonly<Record<string, RouteOutputs>>;

  constructor(name: string, args: GatewayArgs, opts?: pulumi.ComponentResourceOptions) {
    super("stepwise:index:Gateway", name, {}, opts);
    const config = args.gateway;

    const gatewayArgs: cloudflare.AiGatewayArgs = {
      accountId: args.accountId,
      ...gatewaySettings(config),
    };
    if (args.byok !== undefined) gatewayArgs.storeId = args.byok.storeId;
    this.gateway = new cloudflare.AiGateway(
      `${name}-gateway`,
      gatewayArgs,
      // Fields the API fills in and Stepwise does not manage: see gateway-settings.ts.
      { parent: this, ignoreChanges: ignoredGatewayFields(config) },
    );

    const providerConfigs: Record<string, ByokProviderConfig> = {};
    for (const [provider, secretId] of Object.entries(args.byok?.secretIds ?? {})) {
      providerConfigs[provider] = new ByokProviderConfig(
        `${name}-byok-${provider}`,
        {
          accountId: args.accountId,
          gatewayId: this.gateway.aiGatewayId,
          providerSlug: provider,
          secretId,
          apiToken: args.byok?.apiToken,
        },
        { parent: this },
      );
    }
    this.providerConfigs = providerConfigs;

    const routes: Record<string, cloudflare.AiGatewayDynamicRouting | VersionedDynamicRoute> = {};
    const routeOutputs: Record<string, RouteOutputs> = {};
    for (const [routeName, route] of Object.entries(config.routes)) {
      if (!isDynamicRoute(route)) continue;
      const elements = compileDynamicRoute(route);
      if (!expressibleInPulumi(elements)) {
        // A split: AiGatewayDynamicRouting has no field for percentage outputs.
        routes[routeName] = new VersionedDynamicRoute(
          `${name}-route-${routeName}`,
          {
            accountId: args.accountId,
            gatewayId: this.gateway.aiGatewayId,
            name: routeName,
            elementsJson: canonicalJson(elements),
            ...(args.apiToken === undefined ? {} : { apiToken: args.apiToken }),
          },
          { parent: this, dependsOn: Object.values(providerConfigs) },
        );
        routeOutputs[routeName] = { id: routes[routeName].id, model: dynamicModelName(routeName) };
        continue;
      }
      const routeArgs: cloudflare.AiGatewayDynamicRoutingArgs = {
        accountId: args.accountId,
        // The gateway's output, not the config string: the route waits for its gateway.
        gatewayId: this.gateway.aiGatewayId,
        name: routeName,
        elements: toPulumiElements(elements),
      };
      routes[routeName] = new cloudflare.AiGatewayDynamicRouting(
        `${name}-route-${routeName}`,
        routeArgs,
        {
          parent: this,
          // Route graphs cannot be edited in place: the provider replaces the route when its
          // elements change, and the API's PATCH only renames. The trigger is a hash of the
          // compiled graph, so a replacement happens exactly when the graph changes.
          replacementTrigger: routeGraphHash(elements),
          // The route is addressed by name (`dynamic/<route>`), so the old route must be gone
          // before a new one with the same name is created.
          deleteBeforeReplace: true,
          // Deliberately NOT `ignoreChanges: ["elements"]`: the engine copies ignored inputs
          // from the old state into the new goal, and a replacement is created from that goal,
          // so a changed graph would be redeployed with the OLD elements. Without it, a plain
          // `pulumi up` is still stable: the provider stores the planned elements at create and
          // compares the program's (identical, ids derived from positions) elements with them.
          // A dynamic route calls providers with the gateway's stored keys: it waits for them.
          dependsOn: Object.values(providerConfigs),
        },
      );
      routeOutputs[routeName] = {
        id: routes[routeName].id,
        model: dynamicModelName(routeName),
      };
    }
    this.routes = routes;
    this.routeOutputs = routeOutputs;

    const urls = gatewayUrls(args.accountId, this.gateway.aiGatewayId);
    this.universalUrl = urls.universalUrl;
    this.compatUrl = urls.compatUrl;

    this.registerOutputs({
      gatewayId: this.gateway.aiGatewayId,
      universalUrl: this.universalUrl,
      compatUrl: this.compatUrl,
      routeIds: Object.fromEntries(
        Object.entries(routeOutputs).map(([routeName, route]) => [routeName, route.id]),
      ),
    });
  }
}
