/**
 * @module
 * How a provider's key reaches the provider, per gateway: the three answers of Cloudflare's
 * features/unified-billing.mdx (a key on the request, a key stored in the gateway, Cloudflare's
 * own key paid from credits) plus Stepwise's companion Worker, which puts the key on the request
 * for the app.
 *
 * | path              | who holds the key                         | managed key needed          |
 * |-------------------|-------------------------------------------|-----------------------------|
 * | `worker`          | the companion Worker (Workers KV)         | `keys.providers`            |
 * | `byok`            | the gateway (Secrets Store)               | `byok.providers`, `byokKeys`|
 * | `request`         | the app, on every request                 | none                        |
 * | `unified-billing` | Cloudflare, paid from the account credits | none                        |
 *
 * A gateway says it with `credentials` (all its providers) and `providerCredentials` (one
 * provider); without either, a provider's path is what it always was: `byok` when the gateway
 * lists it in `byok.providers`, else `worker` when `keys.providers` lists it. The order, first
 * match wins: `providerCredentials.<provider>`, `byok.providers`, `credentials`, `keys.providers`.
 *
 * Both the cross-field checks (raw input) and `stepwise validate`'s listing (parsed config) ask
 * `resolveCredentialPath`, so what validate prints is what it checked.
 */
import * as z from "zod";

/** The ways a provider's key reaches it. */
export const credentialPaths = ["worker", "byok", "request", "unified-billing"] as const;
export type CredentialPath = (typeof credentialPaths)[number];

export const credentialPathSchema = z.enum(credentialPaths, {
  error: 'credentials must be "worker", "byok", "request" or "unified-billing"',
});

/**
 * Providers Unified Billing pays for (features/unified-billing.mdx: "The HTTP API supports the
 * following providers": OpenAI, Anthropic, Google AI Studio, Google Vertex AI, xAI, Groq).
 */
export const unifiedBillingProviders: ReadonlySet<string> = new Set([
  "openai",
  "anthropic",
  "google-ai-studio",
  "google-vertex-ai",
  "grok",
  "groq",
]);

/** What decides a gateway's credential paths. */
export interface CredentialSettings {
  /** The gateway's `credentials`. */
  readonly gatewayPath?: string | undefined;
  /** The gateway's `providerCredentials`. */
  readonly providerPaths: Readonly<Record<string, unknown>>;
  /** The gateway's `byok.providers`. */
  readonly byokProviders: ReadonlySet<string | undefined>;
  /** The config's `keys.providers` (the companion Worker's). */
  readonly workerProviders: ReadonlySet<string | undefined>;
}

/** A provider's credential path on a gateway, and which setting decided it. */
export interface ResolvedCredential {
  readonly path: CredentialPath;
  readonly from: "providerCredentials" | "byok.providers" | "credentials" | "keys.providers";
}

const isPath = (value: unknown): value is CredentialPath =>
  (credentialPaths as readonly unknown[]).includes(value);

/** The path of `provider`'s key on a gateway; undefined when nothing gives it one. */
export function resolveCredentialPath(
  provider: string,
  settings: CredentialSettings,
): ResolvedCredential | undefined {
  const own = settings.providerPaths[provider];
  if (isPath(own)) return { path: own, from: "providerCredentials" };
  if (settings.byokProviders.has(provider)) return { path: "byok", from: "byok.providers" };
  if (isPath(settings.gatewayPath)) return { path: settings.gatewayPath, from: "credentials" };
  if (settings.workerProviders.has(provider)) return { path: "worker", from: "keys.providers" };
  return undefined;
}

/** One sentence on where a step's key comes from, as `stepwise validate` lists it. */
export function describeCredentialPath(
  provider: string,
  resolved: ResolvedCredential | undefined,
  gatewayId: string,
): string {
  if (resolved === undefined) return "no key: nothing gives this provider one";
  if (provider === "workers-ai" && resolved.path !== "worker" && resolved.path !== "byok") {
    // features/unified-billing.mdx: "Workers AI models … are not charged via Unified Billing."
    return "the account's own Workers AI key (billed as Workers AI, not from credits)";
  }
  switch (resolved.path) {
    case "worker":
      return "key from the companion Worker";
    case "byok":
      return `key stored in gateway "${gatewayId}" (BYOK)`;
    case "request":
      return "key sent by the app on the request";
    case "unified-billing":
      return "Cloudflare's key, paid from the account's credits (Unified Billing)";
  }
}
