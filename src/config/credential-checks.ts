/**
 * @module
 * The cross-field rules of a gateway's credential paths (`credentials`, `providerCredentials`,
 * `byokOnly`; see `credential-paths.ts`), on raw input like the other checks of `checks.ts`:
 *
 * - a step's provider needs a path, and the path its managed key: `worker` needs the provider in
 *   `keys.providers`, `byok` in the gateway's `byok.providers`; `request` and `unified-billing`
 *   need no managed key;
 * - Unified Billing needs an authenticated gateway (features/unified-billing.mdx, "Pre-requisites":
 *   "Ensure you have authenticated your AI Gateway") and pays only for the providers it lists;
 * - `byokOnly` "prevents fallback to Unified Billing with Cloudflare-managed credentials"
 *   (changelog 2026-09-14), so a gateway cannot have both. Keys on the request are what it asks
 *   for ("Credentials must accompany the request or be stored on the gateway"), so `request` and
 *   `worker` (which puts the key on the request) are allowed under it.
 */
import {
  type CredentialSettings,
  resolveCredentialPath,
  unifiedBillingProviders,
} from "./credential-paths.ts";

type Issue = { message: string; path: PropertyKey[] };
type Loose = Record<string, unknown>;

const supportedList = [...unifiedBillingProviders].join(", ");

/** The problem with where a step's provider gets its key, if there is one. */
export function stepCredentialProblem(
  provider: string,
  settings: CredentialSettings,
  gatewayIndex: number,
): string | undefined {
  const gateway = `gateways[${gatewayIndex}]`;
  const resolved = resolveCredentialPath(provider, settings);
  if (resolved === undefined) {
    return `provider "${provider}" has no key: add it to keys.providers (the companion Worker holds it) or to ${gateway}.byok.providers (the gateway holds it), or say how its key reaches it: ${gateway}.providerCredentials.${provider}: request (the app sends it) or unified-billing (Cloudflare's, paid from credits)`;
  }
  const setBy =
    resolved.from === "providerCredentials"
      ? `${gateway}.providerCredentials.${provider}`
      : `${gateway}.credentials`;
  if (resolved.path === "worker" && !settings.workerProviders.has(provider)) {
    return `provider "${provider}" takes its key from the companion Worker (${setBy}: worker), which does not hold it: add ${provider} to keys.providers`;
  }
  if (resolved.path === "byok" && !settings.byokProviders.has(provider)) {
    return `provider "${provider}" takes its key from gateway storage (${setBy}: byok), which has none: add ${provider} to ${gateway}.byok.providers (its key: pulumi config set --secret --path 'stepwise:byokKeys.${provider}' <key>)`;
  }
  // An unsupported provider named in providerCredentials is reported at that entry.
  if (
    resolved.path === "unified-billing" &&
    resolved.from === "credentials" &&
    provider !== "workers-ai" &&
    !unifiedBillingProviders.has(provider)
  ) {
    return `provider "${provider}" is not paid by Unified Billing (${setBy}: unified-billing), which serves ${supportedList}: give it its own path, e.g. ${gateway}.providerCredentials.${provider}: request`;
  }
  return undefined;
}

/** Problems of a gateway's own credential settings: Unified Billing's conditions and `byokOnly`. */
export function findGatewayCredentialProblems(
  gateway: Loose,
  gatewayIndex: number,
  settings: CredentialSettings,
): Issue[] {
  const issues: Issue[] = [];
  const base = ["gateways", gatewayIndex];
  const unifiedAt: PropertyKey[][] = [];
  if (settings.gatewayPath === "unified-billing") unifiedAt.push([...base, "credentials"]);
  for (const [provider, path] of Object.entries(settings.providerPaths)) {
    if (path !== "unified-billing") continue;
    const at = [...base, "providerCredentials", provider];
    if (!unifiedBillingProviders.has(provider)) {
      issues.push({
        path: at,
        message:
          provider === "workers-ai"
            ? `Workers AI is not paid by Unified Billing ("Workers AI models … are not charged via Unified Billing", features/unified-billing.mdx): remove this entry; on an authenticated gateway Cloudflare bills Workers AI to the account`
            : `Unified Billing does not pay for ${provider}; it serves ${supportedList}: choose worker, byok or request for ${provider}`,
      });
      continue;
    }
    unifiedAt.push(at);
  }
  if (unifiedAt.length === 0) return issues;
  if (gateway.authentication !== true) {
    for (const at of unifiedAt) {
      issues.push({
        path: at,
        message: `Unified Billing needs an authenticated gateway (features/unified-billing.mdx: "Ensure you have authenticated your AI Gateway"): set gateways[${gatewayIndex}].authentication: true`,
      });
    }
  }
  if (gateway.byokOnly === true) {
    const where = unifiedAt.map((at) => at.slice(2).join(".")).join(", ");
    issues.push({
      path: [...base, "byokOnly"],
      message: `byokOnly ("Require provider credentials") "prevents fallback to Unified Billing with Cloudflare-managed credentials", but this gateway pays with Unified Billing (${where}): remove byokOnly, or give those providers worker, byok or request keys`,
    });
  }
  return issues;
}
