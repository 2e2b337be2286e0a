/**
 * @module
 * The config a campaign runs against: the user's config, with the campaign's gateway stripped of
 * what would hide or distort the faults. Its cache is off (a cached answer never reaches a
 * provider), its request rate limit and spend limits are gone (thousands of calls in a minute
 * would hit the stack's limits, which are a separate feature with their own tests). Routes,
 * retries, keys and everything else stay as configured; the file on disk is not changed.
 */
import type { GatewayConfig, RouteConfig, StepwiseConfig } from "../config/index.ts";
import { StepwiseError } from "../errors/index.ts";

/** The gateway and route a campaign uses. */
export interface CampaignTarget {
  readonly config: StepwiseConfig;
  readonly gateway: GatewayConfig;
  readonly route: RouteConfig;
}

/**
 * Picks the gateway (the first when none is named) and route, and returns the config to run.
 * @throws {StepwiseError} `chaos_route_missing` naming the gateways and routes there are, or
 * `chaos_key_missing` when a step's provider has no key in the companion Worker.
 */
export function chaosTarget(
  config: StepwiseConfig,
  gatewayId: string | undefined,
  routeName: string,
): CampaignTarget {
  const gateway =
    gatewayId === undefined
      ? config.gateways[0]
      : config.gateways.find((candidate) => candidate.id === gatewayId);
  if (gateway === undefined) {
    throw new StepwiseError({
      code: "chaos_route_missing",
      message: `gateway "${gatewayId}" is not in the config; pick one of ${config.gateways.map((candidate) => candidate.id).join(", ")}`,
    });
  }
  const route = gateway.routes[routeName];
  if (route === undefined) {
    throw new StepwiseError({
      code: "chaos_route_missing",
      message: `route "${routeName}" is not in gateway ${gateway.id}; pick one of ${Object.keys(gateway.routes).join(", ")} with --route`,
    });
  }
  const withoutKeys = route.steps
    .map((step) => step.provider)
    .filter((provider) => !config.keys.providers.includes(provider));
  if (withoutKeys.length > 0) {
    throw new StepwiseError({
      code: "chaos_key_missing",
      message: `route ${routeName} uses ${withoutKeys.join(", ")}, whose keys the companion Worker does not hold: add them to keys.providers in the config`,
    });
  }
  const { rateLimit: _rateLimit, spendLimits: _spendLimits, ...rest } = gateway;
  const campaignGateway: GatewayConfig = {
    ...rest,
    cache: { ttl: 0, invalidateOnUpdate: false, shareBetweenApps: false },
  };
  return {
    config: {
      ...config,
      gateways: config.gateways.map((candidate) =>
        candidate.id === gateway.id ? campaignGateway : candidate,
      ),
    },
    gateway: campaignGateway,
    route,
  };
}
