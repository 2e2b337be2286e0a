/**
 * @module
 * The URLs a client and CI need after a deploy: a gateway's universal and OpenAI-compatible
 * endpoints, and the companion Worker's workers.dev URL.
 */
import * as pulumi from "@pulumi/pulumi";

/** Cloudflare's AI Gateway host. */
export const gatewayHost = "https://gateway.ai.cloudflare.com";

export interface GatewayUrls {
  /** `POST` an array of steps here: `https://gateway.ai.cloudflare.com/v1/{account}/{gateway}`. */
  readonly universalUrl: pulumi.Output<string>;
  /** OpenAI SDK `baseURL`; chat completions are at `…/compat/chat/completions`. */
  readonly compatUrl: pulumi.Output<string>;
}

export function gatewayUrls(
  accountId: pulumi.Input<string>,
  gatewayId: pulumi.Input<string>,
): GatewayUrls {
  const universalUrl = pulumi.interpolate`${gatewayHost}/v1/${accountId}/${gatewayId}`;
  return { universalUrl, compatUrl: pulumi.interpolate`${universalUrl}/compat` };
}

/**
 * `https://{worker}.{subdomain}.workers.dev`, or undefined when the account's workers.dev
 * subdomain is not in the config (Cloudflare assigns it per account; Stepwise cannot guess it).
 */
export function workerUrl(
  workerName: pulumi.Input<string>,
  workersDevSubdomain: pulumi.Input<string | undefined>,
): pulumi.Output<string | undefined> {
  return pulumi
    .all([workerName, workersDevSubdomain])
    .apply(([name, subdomain]) =>
      subdomain === undefined ? undefined : `https://${name}.${subdomain}.workers.dev`,
    );
}
