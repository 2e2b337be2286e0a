/**
 * @module
 * Each route step's credential path, as `stepwise validate` lists it (text and `--json`): where
 * the key of the step's provider comes from on its gateway (`resolveCredentialPath`, the rule the
 * checks apply), in one sentence. A dynamic route (`dynamic/<route>`) runs on Cloudflare with the
 * keys stored in the gateway, so its steps say so too.
 */
import {
  type CredentialPath,
  describeCredentialPath,
  type GatewayConfig,
  type ResolvedCredential,
  resolveCredentialPath,
  type StepwiseConfig,
} from "../config/index.ts";
import { isDynamicRoute } from "./dynamic.ts";
import { dynamicModelName } from "./elements.ts";
import { defaultChainName, routeChains } from "./policy.ts";

/** One step and where its key comes from. */
export interface StepCredential {
  readonly gateway: string;
  readonly route: string;
  /** `default` for the route's `steps`, else the chain's name. */
  readonly chain: string;
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  /** The path; null when nothing gives the provider a key (validate reports it). */
  readonly path: CredentialPath | null;
  /** The setting that decided it: `providerCredentials`, `byok.providers`, `credentials`, `keys.providers`. */
  readonly from: ResolvedCredential["from"] | null;
  /** The sentence validate prints, e.g. "key from the companion Worker (keys.providers), …". */
  readonly description: string;
}

/** The credential settings of one gateway, as `resolveCredentialPath` takes them. */
export function gatewayCredentialSettings(gateway: GatewayConfig, config: StepwiseConfig) {
  return {
    gatewayPath: gateway.credentials,
    providerPaths: gateway.providerCredentials ?? {},
    byokProviders: new Set(gateway.byok?.providers ?? []),
    workerProviders: new Set(config.keys.providers),
  };
}

/** Every step of every route (all chains), in config order, with its credential path. */
export function listStepCredentials(config: StepwiseConfig): StepCredential[] {
  return config.gateways.flatMap((gateway) => {
    const settings = gatewayCredentialSettings(gateway, config);
    return Object.entries(gateway.routes).flatMap(([routeName, route]) =>
      routeChains(route).flatMap((chain) =>
        chain.steps.map((step, index): StepCredential => {
          const resolved = resolveCredentialPath(step.provider, settings);
          let description = describeCredentialPath(step.provider, resolved, gateway.id);
          if (isDynamicRoute(route) && resolved?.path !== "byok") {
            description += `; as ${dynamicModelName(routeName)}, the key stored in the gateway`;
          }
          return {
            gateway: gateway.id,
            route: routeName,
            chain: chain.name,
            step: index,
            provider: step.provider,
            model: step.model,
            path: resolved?.path ?? null,
            from: resolved?.from ?? null,
            description,
          };
        }),
      ),
    );
  });
}

/** `step 0 openai/gpt-4o-mini — key from the companion Worker …` (chain named when not default). */
export function stepCredentialLine(entry: StepCredential): string {
  const chain = entry.chain === defaultChainName ? "" : `chain ${entry.chain} `;
  return `${chain}step ${entry.step} ${entry.provider}/${entry.model} — ${entry.description}`;
}
