/**
 * @module
 * Portkey's open-source AI gateway (`@portkey-ai/gateway`, a dev dependency) in a child process
 * on 127.0.0.1, started from its published build with `--headless` (no UI, no log stream). Its
 * build listens on all interfaces by default; a resolve hook (`portkey-register.mjs`) makes it
 * bind loopback at a free port, and the parent checks the bound address.
 *
 * Portkey's `postinstall` runs `patch-package`, which npm 11 skips here; the published package
 * ships no patches, so the build runs as published.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type ChildServer, startChildServer } from "./child-server.ts";

const require = createRequire(import.meta.url);
const register = fileURLToPath(new URL("./portkey-register.mjs", import.meta.url));

/** The version of `@portkey-ai/gateway` installed. */
export function portkeyVersion(): string {
  return (require("@portkey-ai/gateway/package.json") as { version: string }).version;
}

function portkeyEntry(): string {
  const manifest = require.resolve("@portkey-ai/gateway/package.json");
  return path.join(path.dirname(manifest), "build", "start-server.js");
}

/** Starts Portkey's gateway; its chat endpoint is `${url}/v1/chat/completions`. */
export function startPortkey(): Promise<ChildServer> {
  return startChildServer({
    name: "Portkey's gateway",
    modulePath: portkeyEntry(),
    args: ["--headless", "--port=0"],
    execArgv: ["--import", register],
  });
}

/** One target of a Portkey config. */
export interface PortkeyTarget {
  readonly provider: string;
  readonly apiKey: string;
  /** Base URL the provider's path is appended to, e.g. `http://127.0.0.1:4100/v1`. */
  readonly customHost: string;
  readonly model: string;
  /** Portkey's `request_timeout`, in ms. */
  readonly requestTimeoutMs?: number;
}

/**
 * The `x-portkey-config` header for a fallback over the targets, in order: Portkey tries the
 * next target on any non-2xx answer (or its own 408 after `request_timeout`).
 */
export function portkeyFallbackConfig(targets: readonly PortkeyTarget[]): string {
  return JSON.stringify({
    strategy: { mode: "fallback" },
    targets: targets.map((target) => ({
      provider: target.provider,
      api_key: target.apiKey,
      custom_host: target.customHost,
      override_params: { model: target.model },
      ...(target.requestTimeoutMs === undefined
        ? {}
        : { request_timeout: target.requestTimeoutMs }),
    })),
  });
}
