/**
 * @module
 * `stepwise-gateway/client/rest`: the client on Cloudflare's REST API (`/ai/v1/chat/completions`,
 * `/ai/v1/messages`), an entry of its own so that an app on the gateway's URL does not carry it.
 * @example
 * import { createRestClient } from "stepwise-gateway/client/rest";
 * const client = createRestClient({ accountId, gatewayId: "chat-prod", apiToken, routes });
 * const answer = await client.chat({ route: "support", messages });
 * answer.served; // { index: 1, provider: "openai", model: "gpt-4o-mini", ... }, as on the universal endpoint
 */

export { createRestClient, type RestClientOptions, type RestFormat } from "./rest-client.ts";
export { readRestModelName, restAiUrlOf, restModelName } from "./rest-names.ts";
