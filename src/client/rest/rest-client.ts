/**
 * @module
 * `createRestClient`: the client's REST mode. Calls go to Cloudflare's REST API
 * (usage/rest-api.mdx) instead of the gateway's URL: `POST /ai/v1/chat/completions` in OpenAI's
 * format, or `/ai/v1/messages` in Anthropic's (`format: "messages"`), with the Cloudflare API
 * token in `Authorization` and the gateway in `cf-aig-gateway-id`. A route of more than one step
 * (or with a policy) is sent as its dynamic route, `dynamic/<route>`; a one-step route as its
 * model, `author/model`. Which step served comes from `cf-aig-provider` and `cf-aig-model`, mapped
 * to the route's step as for `mode: "dynamic"`, so a call's event (mode `rest`) has the same step,
 * provider and model whichever endpoint carried it. When the dynamic route fails, the client goes
 * on with the steps after the one that failed, each as its own model on the same endpoint.
 */

import { throwProblems } from "../call-errors.ts";
import { createGatewayClient, type GatewayClient } from "../client.ts";
import type { GatewayClientOptions } from "../types.ts";
import { restAiUrlOf, restModelName } from "./rest-names.ts";

/** The REST API's chat formats: OpenAI chat completions, or Anthropic Messages. */
export type RestFormat = "chat-completions" | "messages";

/** Settings for `createRestClient`: the client's, plus the API token and the format. */
export interface RestClientOptions extends GatewayClientOptions {
  /**
   * A Cloudflare API token with AI Gateway permission, sent as `Authorization: Bearer <token>`
   * (the emulator takes its gateway token). `gatewayToken` is not sent on the REST API.
   */
  readonly apiToken: string;
  /** `chat-completions` (default, `/ai/v1/chat/completions`) or `messages` (`/ai/v1/messages`). */
  readonly format?: RestFormat;
}

const formats: readonly RestFormat[] = ["chat-completions", "messages"];

/**
 * Creates a client whose calls go through the REST API. Same calls, answers and events as
 * `createGatewayClient`'s; `url(path)` is under `…/ai/v1`, an SDK's `baseURL`.
 * @throws InvalidOptionsError when the API token is missing or the format unknown, and for
 * everything `createGatewayClient` refuses.
 * @example
 * const client = createRestClient({
 *   accountId: config.accountId,
 *   gatewayId: "chat-prod",
 *   apiToken: process.env.CLOUDFLARE_API_TOKEN,
 *   routes: gateway.routes,
 * });
 * const answer = await client.chat({ route: "support", messages }); // model "dynamic/support"
 */
export function createRestClient(options: RestClientOptions): GatewayClient {
  const problems: string[] = [];
  const apiToken = String(options.apiToken ?? "").trim();
  if (apiToken === "") {
    problems.push(
      "apiToken is missing: the REST API authenticates with a Cloudflare API token that has AI Gateway permission",
    );
  }
  const format = options.format ?? "chat-completions";
  if (!formats.includes(format)) {
    problems.push(
      `format must be one of ${formats.map((name) => `"${name}"`).join(", ")}; got ${JSON.stringify(format)}`,
    );
  }
  throwProblems("createRestClient", problems);
  const aiUrl = `${restAiUrlOf(options)}/v1`;
  const messages = format === "messages";
  const client = createGatewayClient(
    {
      ...options,
      gatewayToken: undefined,
      headers: {
        ...options.headers,
        authorization: `Bearer ${apiToken}`,
        "cf-aig-gateway-id": options.gatewayId,
      },
    },
    {
      url: `${aiUrl}/${messages ? "messages" : "chat/completions"}`,
      adapter: messages ? "anthropic" : "compat",
      modelOf: restModelName,
    },
  );
  return {
    chat: client.chat,
    stream: client.stream,
    url: (path = "") => aiUrl + (path && `/${path.replace(/^\/+/, "")}`),
  };
}
