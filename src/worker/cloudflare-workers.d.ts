/**
 * The part of the Workers runtime module `cloudflare:workers` the Worker uses, typed
 * structurally (the project does not load the full runtime types; see `bindings.ts`).
 */
declare module "cloudflare:workers" {
  /** Base class of a Durable Object whose public methods are callable over RPC. */
  export abstract class DurableObject<Env = unknown> {
    protected readonly ctx: import("./durable-objects.ts").DurableObjectContext;
    protected readonly env: Env;
    constructor(ctx: import("./durable-objects.ts").DurableObjectContext, env: Env);
  }
}
