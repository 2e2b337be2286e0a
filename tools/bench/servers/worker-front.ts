/**
 * @module
 * The companion Worker in workerd (the bundle `wrangler deploy --dry-run` builds, with its
 * Durable Objects and a local KV) in front of a gateway the benchmark started itself (the
 * emulator in its child process), seeded through the Worker's admin API with the bench keys and
 * one app token: what `startLocalSystem` does, for an emulator it did not start.
 */
import { randomBytes } from "node:crypto";
import { parseConfig, workerViewText } from "../../../src/config/index.ts";
import { buildWorkerBundle, startWorker } from "../../../src/demo/local-worker.ts";
import { createAppToken, rotateKey } from "../../../src/worker-admin/index.ts";
import type { Cleanup } from "../cleanup.ts";
import { benchConfig, benchKey, providers } from "../fixtures.ts";

/** A running Worker and the token an app sends it. */
export interface WorkerFront {
  readonly url: string;
  readonly appToken: string;
}

/** Starts the Worker in front of `gatewayUrl` (bench config, no gateway authentication). */
export async function startWorkerFront(cleanup: Cleanup, gatewayUrl: string): Promise<WorkerFront> {
  const bundle = cleanup.add(await buildWorkerBundle(), (built) => built.remove());
  const adminToken = randomBytes(24).toString("base64url");
  const worker = cleanup.add(
    await startWorker(bundle.scriptPath, {
      ROTATE_TOKEN: adminToken,
      GATEWAY_TOKEN: "bench-gateway-token",
      GATEWAY_URL: gatewayUrl,
      STEPWISE_CONFIG: workerViewText(parseConfig(benchConfig())),
      CLOUDFLARE_API_URL: `${gatewayUrl}/client/v4`,
      SECRETS_STORE_TOKEN: randomBytes(24).toString("base64url"),
      BYOK_STORE_ID: "",
    }),
    (running) => running.close(),
  );
  for (const provider of providers) {
    await rotateKey({
      workerUrl: worker.url,
      provider,
      key: benchKey(provider),
      token: adminToken,
      label: "bench",
      fetch,
    });
  }
  const { token } = await createAppToken({
    workerUrl: worker.url,
    token: adminToken,
    name: "bench",
    rateLimit: { limit: 1_000_000, windowSeconds: 60 },
  });
  // workerd itself, as deployed: the local framing front (`src/demo/framing-front.ts`) is not.
  return { url: worker.workerdUrl, appToken: token };
}
