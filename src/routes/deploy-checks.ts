/**
 * @module
 * Which routes would not work on Cloudflare as written. Cloudflare runs a dynamic route
 * (`dynamic/<route>`) only on an authenticated gateway that stores its providers' keys (BYOK);
 * a route deployed anyway is an error, with the fix. A step setting the dynamic form cannot
 * express (see `dynamic-settings.ts`) is a warning naming the setting and the route: the same
 * route would behave differently through the universal endpoint and through `dynamic/<route>`.
 */

import { resolveCredentialPath } from "../config/credential-paths.ts";
import type { ConfigFinding } from "../config/findings.ts";
import type { GatewayConfig, StepwiseConfig } from "../config/schema.ts";
import { gatewayCredentialSettings } from "./credential-listing.ts";
import { isDynamicRoute } from "./dynamic.ts";
import { droppedDynamicSettings } from "./dynamic-settings.ts";
import { dynamicModelName } from "./elements.ts";
import { defaultChainName, routeChains } from "./policy.ts";

/** Every finding about the config's dynamic routes, errors and warnings. */
export function findDeployProblems(config: StepwiseConfig): ConfigFinding[] {
  return config.gateways.flatMap((gateway, index) => gatewayFindings(config, gateway, index));
}

function gatewayFindings(
  config: StepwiseConfig,
  gateway: GatewayConfig,
  gatewayIndex: number,
): ConfigFinding[] {
  const findings: ConfigFinding[] = [];
  const stored = new Set(gateway.byok?.providers ?? []);
  for (const [routeName, route] of Object.entries(gateway.routes)) {
    if (!isDynamicRoute(route)) continue;
    const routePath = ["gateways", gatewayIndex, "routes", routeName];
    const model = dynamicModelName(routeName);
    const keepUniversal = `or set dynamic: false on route "${routeName}" to keep it universal-only (the client sends its steps to the universal endpoint)`;
    if (!gateway.authentication) {
      findings.push({
        severity: "error",
        path: routePath,
        message: `route "${routeName}" is deployed as the dynamic route ${model}, but gateway "${gateway.id}" is not authenticated and Cloudflare runs dynamic routes only on authenticated gateways: set gateways[${gatewayIndex}].authentication: true, ${keepUniversal}`,
      });
    }
    const missing = new Map<string, PropertyKey[]>();
    for (const chain of routeChains(route)) {
      chain.steps.forEach((step, index) => {
        if (!stored.has(step.provider) && !missing.has(step.provider)) {
          missing.set(step.provider, [...chainPath(routePath, chain.name), index]);
        }
      });
    }
    for (const [provider, stepPath] of missing) {
      const path = resolveCredentialPath(
        provider,
        gatewayCredentialSettings(gateway, config),
      )?.path;
      // A path set on purpose (request keys, Unified Billing) is named: dynamic routes ignore it.
      const chosen =
        path === "request" || path === "unified-billing"
          ? ` (its credentials are ${path}, which a dynamic route does not use: Cloudflare runs it with stored keys)`
          : "";
      findings.push({
        severity: "error",
        path: [...stepPath, "provider"],
        message: `route "${routeName}" is deployed as the dynamic route ${model}, which calls ${provider} with the key stored in gateway "${gateway.id}" (BYOK), and there is none${chosen}: add ${provider} to gateways[${gatewayIndex}].byok.providers (its key: pulumi config set --secret --path 'stepwise:byokKeys.${provider}' <key>), ${keepUniversal}`,
      });
    }
    for (const dropped of droppedDynamicSettings(route)) {
      const where =
        dropped.step === undefined
          ? [...routePath, dropped.setting]
          : [...chainPath(routePath, dropped.chain), dropped.step, dropped.setting];
      const chainName =
        dropped.chain === undefined || dropped.chain === defaultChainName
          ? ""
          : ` of chain "${dropped.chain}"`;
      const subject =
        dropped.step === undefined
          ? `route "${routeName}" sets ${dropped.setting}: ${JSON.stringify(dropped.value)}`
          : `step ${dropped.step}${chainName} of route "${routeName}" sets ${dropped.setting}: ${JSON.stringify(dropped.value)}`;
      findings.push({
        severity: "warning",
        path: where,
        message: `${subject}, which ${model} cannot express (${dropped.reason.replace("dynamic/<route>", model)}); the universal endpoint honours it. Remove it to make both behave alike, ${keepUniversal}`,
      });
    }
  }
  return findings;
}

/** The config path of a chain's steps: `…steps` for the default chain, `…chains.<name>` else. */
function chainPath(routePath: readonly PropertyKey[], chain: string | undefined): PropertyKey[] {
  return chain === undefined || chain === defaultChainName
    ? [...routePath, "steps"]
    : [...routePath, "chains", chain];
}
