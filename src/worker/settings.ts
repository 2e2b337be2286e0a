/**
 * @module
 * Reads the Worker's settings from its bindings: its view of the Stepwise config from
 * `STEPWISE_CONFIG` (the versioned document of `src/config/worker-view.ts`, checked by its
 * zod-free reader `worker-view-read.ts`),
 * the gateway URL and the tokens. The view is parsed once per isolate: the parse is kept beside
 * the exact text it came from and reused while a request's binding holds the same text (a
 * redeploy, or a test's fresh `env`, brings new text and a new parse). Everything else is read
 * from `env` on every request.
 */
import { ConfigError } from "../config/errors.ts";
import type { WorkerView, WorkerViewGateway } from "../config/worker-view.ts";
import { readWorkerView } from "../config/worker-view-read.ts";
import type { WorkerEnv } from "./bindings.ts";

/** Everything the handlers need besides the KV binding. */
export interface WorkerSettings {
  /** The part of the Stepwise config the Worker reads (see docs/worker.md). */
  readonly config: WorkerView;
  /** Gateway base URL without a trailing slash. */
  readonly gatewayUrl: string;
  /** Sent upstream as `cf-aig-authorization`; undefined when not set. */
  readonly gatewayToken: string | undefined;
  /** Admin token; undefined when not set (then every admin call is refused). */
  readonly rotateToken: string | undefined;
}

/**
 * Builds the settings from `env`.
 * @throws {ConfigError} when `STEPWISE_CONFIG` is missing, not JSON, or not a valid worker view
 * (the message names each bad field).
 */
export function readWorkerSettings(env: WorkerEnv): WorkerSettings {
  const config = parsedView(env.STEPWISE_CONFIG);
  const gatewayUrl = nonEmpty(env.GATEWAY_URL) ?? config.worker.gatewayUrl;
  return {
    config,
    gatewayUrl: gatewayUrl.replace(/\/+$/, ""),
    gatewayToken: nonEmpty(env.GATEWAY_TOKEN),
    rotateToken: nonEmpty(env.ROTATE_TOKEN),
  };
}

/** The last view parsed in this isolate and the binding value it came from. */
let lastParsed: { readonly raw: unknown; readonly view: WorkerView } | undefined;

/** The parsed view, from this isolate's cache when the binding's value is unchanged. */
function parsedView(raw: unknown): WorkerView {
  if (lastParsed !== undefined && lastParsed.raw === raw) return lastParsed.view;
  if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) {
    throw missingConfig();
  }
  const view = readWorkerView(raw, "STEPWISE_CONFIG");
  lastParsed = { raw, view };
  return view;
}

function missingConfig(): ConfigError {
  return new ConfigError({
    code: "config_invalid",
    source: "STEPWISE_CONFIG",
    issues: [
      {
        path: "",
        message:
          "is not set: deploy the Worker with Pulumi (it binds the stack config's worker view), or run it " +
          "locally with `npm run worker:dev` (it binds the dev stack's worker view)",
      },
    ],
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** The gateway a proxied path names, if the config declares it for this account. */
export function findGateway(
  config: WorkerView,
  accountId: string,
  gatewayId: string,
): WorkerViewGateway | undefined {
  if (accountId !== config.accountId) return undefined;
  return config.gateways.find((gateway) => gateway.id === gatewayId);
}
