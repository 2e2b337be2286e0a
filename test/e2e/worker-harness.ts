/**
 * @module
 * The end-to-end tests run the Worker exactly as `stepwise demo` does (the bundle as deployed, in
 * workerd), in front of the emulated gateway ({@link startWorkerOverEmulator}) or of a bare Node
 * server standing for it ({@link startWorkerOverServer}), with the config most of them share
 * ({@link chatProdConfig}). Each returns what it started and one `close()` that stops it all.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseConfig, type StepwiseConfig, workerViewText } from "../../src/config/index.ts";
import {
  buildWorkerBundle,
  type RunningWorker,
  startWorker,
  type WorkerBundle,
} from "../../src/demo/local-worker.ts";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../src/emulator/index.ts";
import { createAppToken, rotateKey } from "../../src/worker-admin/index.ts";

export {
  buildWorkerBundle,
  projectRoot,
  type RunningWorker,
  startWorker,
  type WorkerBindings,
  type WorkerBundle,
} from "../../src/demo/local-worker.ts";

/** The account of every end-to-end config. */
export const e2eAccountId = "0123456789abcdef0123456789abcdef";

/**
 * A config with one gateway, `chat-prod`, whose `default` route is `steps`; the Worker holds a key
 * for each step's provider and runs no health probe.
 */
export function chatProdConfig(
  steps: ReadonlyArray<{ provider: string; model: string }>,
  options: {
    /** The gateway checks `cf-aig-authorization` (Authenticated Gateway). */
    authentication?: boolean;
    /** The price table, `provider/model` → USD per million tokens. */
    models?: Record<string, { input: number; output: number }>;
  } = {},
): StepwiseConfig {
  return parseConfig({
    accountId: e2eAccountId,
    gateways: [
      {
        id: "chat-prod",
        ...(options.authentication ? { authentication: true } : {}),
        routes: { default: steps },
      },
    ],
    ...(options.models ? { models: options.models } : {}),
    keys: { providers: [...new Set(steps.map((step) => step.provider))] },
    worker: { healthProbe: { enabled: false } },
  });
}

/** How the Worker's admin API is called: its URL, the admin token, `fetch`. */
export interface WorkerAdmin {
  readonly workerUrl: string;
  readonly token: string;
  readonly fetch: typeof fetch;
}

/** The Worker in front of the emulated gateway. */
export interface WorkerOverEmulator {
  readonly bundle: WorkerBundle;
  readonly emulator: Emulator;
  readonly worker: RunningWorker;
  readonly admin: WorkerAdmin;
  /** Stops the Worker and the emulator, and removes the bundle. */
  close(): Promise<void>;
}

/**
 * Builds the bundle, starts the emulator for `config` and the Worker in front of it (admin token
 * `adminToken`, the emulator's gateway token), with nothing rotated in yet.
 */
export async function startWorkerOverEmulator(options: {
  readonly config: StepwiseConfig;
  readonly adminToken: string;
  readonly gatewayToken: string;
  readonly mockKeys: EmulatorOptions["mockKeys"];
  readonly recordAnalytics?: boolean;
}): Promise<WorkerOverEmulator> {
  const { config, adminToken } = options;
  const bundle = await buildWorkerBundle();
  const emulator = await startEmulator({
    config,
    gatewayToken: options.gatewayToken,
    mockKeys: options.mockKeys,
  });
  const worker = await startWorker(
    bundle.scriptPath,
    {
      ROTATE_TOKEN: adminToken,
      GATEWAY_TOKEN: emulator.gatewayToken,
      GATEWAY_URL: emulator.url,
      STEPWISE_CONFIG: workerViewText(config),
    },
    options.recordAnalytics ? { recordAnalytics: true } : {},
  );
  return {
    bundle,
    emulator,
    worker,
    admin: { workerUrl: worker.url, token: adminToken, fetch: globalThis.fetch },
    async close() {
      await worker.close();
      await emulator.close();
      await bundle.remove();
    },
  };
}

/** The Worker in front of a bare Node server standing for the gateway. */
export interface WorkerOverServer {
  readonly worker: RunningWorker;
  readonly gateway: http.Server;
  /** An app token the Worker issued, for `cf-aig-authorization`. */
  readonly appToken: string;
  /** Stops the Worker, removes the bundle and closes the server. */
  close(): Promise<void>;
}

/**
 * Listens with `handler` on 127.0.0.1 (a port chosen at run time) as the gateway, starts the
 * Worker in front of it, rotates `key` in for `provider` (labelled `label`) and issues an app
 * token named `appName`.
 */
export async function startWorkerOverServer(
  handler: http.RequestListener,
  options: {
    readonly config: StepwiseConfig;
    readonly adminToken: string;
    readonly provider: string;
    readonly key: string;
    readonly label: string;
    readonly appName: string;
  },
): Promise<WorkerOverServer> {
  const { adminToken } = options;
  const gateway = http.createServer(handler);
  await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
  const { port } = gateway.address() as AddressInfo;
  const bundle = await buildWorkerBundle();
  const worker = await startWorker(bundle.scriptPath, {
    ROTATE_TOKEN: adminToken,
    GATEWAY_URL: `http://127.0.0.1:${port}`,
    STEPWISE_CONFIG: workerViewText(options.config),
  });
  await rotateKey({
    workerUrl: worker.url,
    provider: options.provider,
    key: options.key,
    token: adminToken,
    label: options.label,
    fetch: globalThis.fetch,
  });
  const { token } = await createAppToken({
    workerUrl: worker.url,
    token: adminToken,
    name: options.appName,
  });
  return {
    worker,
    gateway,
    appToken: token,
    async close() {
      await worker.close();
      await bundle.remove();
      await new Promise((resolve) => gateway.close(resolve));
    },
  };
}
