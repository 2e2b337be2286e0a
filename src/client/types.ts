/**
 * @module
 * The client's shared types, in one module to import them from: what `createGatewayClient`
 * accepts (`client-options.ts`), what `client.chat` and `client.stream` accept and return
 * (`chat-types.ts`), and the hooks that order an attempt's steps and receive what the client
 * observed (`client-hooks.ts`: the circuit breaker, provider limits, health steering, the
 * recorder). Types only. What a running call keeps is in `call-state.ts`.
 */

export type * from "./chat-types.ts";
export type * from "./client-hooks.ts";
export type * from "./client-options.ts";
