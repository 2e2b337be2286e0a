/**
 * @module
 * Preloaded into Portkey's gateway process (`node --import`): registers the resolve hook that
 * hands Portkey our `@hono/node-server` wrapper, so its server binds 127.0.0.1 at a free port.
 */
import { register } from "node:module";

register(new URL("./portkey-hooks.mjs", import.meta.url));
