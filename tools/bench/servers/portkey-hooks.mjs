/**
 * @module
 * Module resolve hook for Portkey's gateway process. Portkey's build
 * (`@portkey-ai/gateway/build/start-server.js`) calls `serve({ fetch, port })` from
 * `@hono/node-server` at top level with no hostname, which listens on every interface. Its
 * import of that package (and only its) resolves to `portkey-serve.mjs` instead.
 */
const wrapper = new URL("./portkey-serve.mjs", import.meta.url).href;

/** Node's `resolve` hook. */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === "@hono/node-server" && context.parentURL?.includes("/@portkey-ai/gateway/")) {
    return { url: wrapper, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
