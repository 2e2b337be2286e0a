/**
 * @module
 * `VersionedDynamicRoute`: a dynamic route deployed through Cloudflare's own route API — create,
 * then a new version and a deployment for every change — for element graphs that
 * `cloudflare.AiGatewayDynamicRouting` (`@pulumi/cloudflare` 6.22.1) cannot hold. Its schema has
 * fixed output ports (`next`, `true`, `false`, `success`, `fallback`), so a percentage element,
 * whose outputs are named by their share (`"10%"`, `else`), has nowhere to go. This Pulumi dynamic
 * resource calls the official `cloudflare` SDK (`aiGateway.dynamicRouting`) instead.
 *
 * Behaviour: a changed graph is a new version, deployed at once (the route keeps its id, and the
 * previous version stays at Cloudflare for a rollback); a changed name is a rename; a changed
 * account or gateway replaces the route (the old one is deleted first: routes are addressed by
 * name). Creating a route whose name is taken — as when the first split moves a route from
 * `AiGatewayDynamicRouting` to this resource, whose create runs before the old resource's
 * delete — deletes the route of that name first. Deleting a route already gone succeeds.
 *
 * The provider is serialized into the state by Pulumi, so it captures nothing but the SDK module
 * (loaded with `require`).
 */
import * as pulumi from "@pulumi/pulumi";
import { expectCloudflareSdk, optionalCloudflareSdk } from "./cloudflare-sdk.ts";

const cloudflareSdk = optionalCloudflareSdk()!;

export interface VersionedDynamicRouteArgs {
  /** Cloudflare account id. Required. */
  readonly accountId: pulumi.Input<string>;
  /** The gateway (its output, so the route waits for the gateway). Required. */
  readonly gatewayId: pulumi.Input<string>;
  /** The route's name: `dynamic/<name>`. Required. */
  readonly name: pulumi.Input<string>;
  /** The compiled elements as canonical JSON (`canonicalJson`), in the API's spelling. Required. */
  readonly elementsJson: pulumi.Input<string>;
  /** API token with AI Gateway Edit. Default: `$CLOUDFLARE_API_TOKEN`. */
  readonly apiToken?: pulumi.Input<string>;
  /** API base URL. Default: the SDK's (`https://api.cloudflare.com/client/v4`). */
  readonly baseUrl?: pulumi.Input<string>;
}

/** The inputs as the provider receives them (resolved). */
export interface VersionedRouteInputs {
  readonly accountId: string;
  readonly gatewayId: string;
  readonly name: string;
  readonly elementsJson: string;
  readonly apiToken?: string;
  readonly baseUrl?: string;
}

/** What the state keeps besides the inputs. */
export interface VersionedRouteOutputs extends VersionedRouteInputs {
  /** The live version and its deployment. */
  readonly versionId: string;
  readonly deploymentId?: string;
}

type Client = InstanceType<typeof cloudflareSdk.Cloudflare>;

function clientFor(inputs: Pick<VersionedRouteInputs, "apiToken" | "baseUrl">): Client {
  return new cloudflareSdk.Cloudflare({
    ...(inputs.apiToken ? { apiToken: inputs.apiToken } : {}),
    ...(inputs.baseUrl ? { baseURL: inputs.baseUrl } : {}),
  });
}

/** The dynamic provider; exported for tests, which call it against msw or the emulator. */
export const versionedRouteProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: VersionedRouteInputs) {
    const client = clientFor(inputs);
    const params = { account_id: inputs.accountId };
    const taken = await findByName(client, inputs);
    if (taken !== undefined) {
      await client.aiGateway.dynamicRouting.delete(taken, {
        ...params,
        gateway_id: inputs.gatewayId,
      });
    }
    const created = await client.aiGateway.dynamicRouting.create(inputs.gatewayId, {
      ...params,
      name: inputs.name,
      elements: JSON.parse(inputs.elementsJson),
    });
    const outs: VersionedRouteOutputs = {
      ...inputs,
      versionId: created.version.version_id,
      deploymentId: created.deployment.deployment_id,
    };
    return { id: created.id, outs };
  },

  async diff(_id: string, olds: VersionedRouteOutputs, news: VersionedRouteInputs) {
    const replaces = (["accountId", "gatewayId"] as const).filter(
      (name) => olds[name] !== news[name],
    );
    const changed = (["name", "elementsJson", "apiToken", "baseUrl"] as const).some(
      (name) => olds[name] !== news[name],
    );
    return {
      changes: replaces.length > 0 || changed,
      replaces: [...replaces],
      deleteBeforeReplace: true,
    };
  },

  async update(id: string, olds: VersionedRouteOutputs, news: VersionedRouteInputs) {
    const client = clientFor(news);
    const params = { account_id: news.accountId, gateway_id: news.gatewayId };
    let versionId = olds.versionId;
    let deploymentId = olds.deploymentId;
    if (olds.elementsJson !== news.elementsJson) {
      const version = await client.aiGateway.dynamicRouting.createVersion(id, {
        ...params,
        elements: JSON.parse(news.elementsJson),
      });
      versionId = (await versionIdOf(client, id, params, version)) ?? versionId;
      const deployment = await client.aiGateway.dynamicRouting.createDeployment(id, {
        ...params,
        version_id: versionId,
      });
      deploymentId =
        (deployment as { deployment?: { deployment_id?: string } }).deployment?.deployment_id ??
        deploymentId;
    }
    if (olds.name !== news.name) {
      await client.aiGateway.dynamicRouting.update(id, { ...params, name: news.name });
    }
    const outs: VersionedRouteOutputs = {
      ...news,
      versionId,
      ...(deploymentId === undefined ? {} : { deploymentId }),
    };
    return { outs };
  },

  async delete(id: string, props: VersionedRouteOutputs) {
    try {
      await clientFor(props).aiGateway.dynamicRouting.delete(id, {
        account_id: props.accountId,
        gateway_id: props.gatewayId,
      });
    } catch (error) {
      if (!(error instanceof cloudflareSdk.NotFoundError)) throw error;
    }
  },
};

/** The id of the gateway's route with this name, if any. */
async function findByName(
  client: Client,
  inputs: VersionedRouteInputs,
): Promise<string | undefined> {
  for (let page = 1; page <= 50; page++) {
    const listed = await client.aiGateway.dynamicRouting.list(inputs.gatewayId, {
      account_id: inputs.accountId,
      page,
      per_page: 100,
    });
    const routes = listed.data.routes;
    const match = routes.find((route) => route.name === inputs.name);
    if (match !== undefined) return match.id;
    if (routes.length < 100) return undefined;
  }
  return undefined;
}

/**
 * The id of the version just created. The SDK types the answer as the route; the API (and the
 * emulator) also carry the version, and failing that the newest listed version is it.
 */
async function versionIdOf(
  client: Client,
  id: string,
  params: { account_id: string; gateway_id: string },
  answer: unknown,
): Promise<string | undefined> {
  const direct = answer as { version_id?: string; version?: { version_id?: string } };
  if (direct.version_id) return direct.version_id;
  if (direct.version?.version_id) return direct.version.version_id;
  const listed = await client.aiGateway.dynamicRouting.listVersions(id, params);
  const newest = [...listed.data.versions].sort((a, b) =>
    a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0,
  )[0];
  return newest?.version_id;
}

export class VersionedDynamicRoute extends pulumi.dynamic.Resource {
  /** The route's name. */
  declare readonly name: pulumi.Output<string>;
  /** The live version. */
  declare readonly versionId: pulumi.Output<string>;

  constructor(name: string, args: VersionedDynamicRouteArgs, opts?: pulumi.CustomResourceOptions) {
    expectCloudflareSdk(cloudflareSdk, "VersionedDynamicRoute (a route with a percentage split)");
    const inputs: Record<
      keyof VersionedRouteInputs | "versionId",
      pulumi.Input<unknown> | undefined
    > = {
      accountId: args.accountId,
      gatewayId: args.gatewayId,
      name: args.name,
      elementsJson: args.elementsJson,
      apiToken: args.apiToken === undefined ? undefined : pulumi.secret(args.apiToken),
      baseUrl: args.baseUrl,
      versionId: undefined,
    };
    super(versionedRouteProvider, name, inputs, opts, "stepwise", "VersionedDynamicRoute");
  }
}
