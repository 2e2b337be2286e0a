/**
 * @module
 * `npm run worker:dev`: the companion Worker under `wrangler dev` on this machine, ready to try
 * the admin API and `stepwise rotate` by following the docs. It listens on 127.0.0.1:8788 (next
 * to `stepwise dev`'s emulator on 8787), takes the dev stack's config (its worker view), forwards gateway calls to
 * the emulator with its default gateway token, and accepts the local admin token
 * `stepwise-local-admin-token`: a name for a local server on loopback, never a deployed secret
 * (Pulumi sets the real ROTATE_TOKEN from `stepwise:rotateToken`). KV lives in `.wrangler/state`.
 * The two tokens reach wrangler through a vars file in a temporary folder (`--env-file`), never
 * its command line; the folder is removed when wrangler exits.
 *
 * Usage: `npm run worker:dev [-- <wrangler dev options>]`, e.g. `-- --port 9000`.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, workerViewText } from "../../src/config/index.ts";
import { defaultGatewayToken } from "../../src/emulator/options.ts";
import { writeDevVarsFile } from "./dev-vars-file.ts";

/** The admin token `npm run worker:dev` accepts (`STEPWISE_ROTATE_TOKEN` for `stepwise rotate`). */
export const localAdminToken = "stepwise-local-admin-token";
/** Where `npm run worker:dev` listens unless `--port` says otherwise. */
export const localWorkerPort = 8788;
/** Where `stepwise dev` listens by default: the Worker forwards gateway calls there. */
export const localGatewayUrl = "http://127.0.0.1:8787";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The Worker's secrets under `npm run worker:dev`: written to the vars file, not to argv. */
export const localWorkerSecrets = {
  ROTATE_TOKEN: localAdminToken,
  GATEWAY_TOKEN: defaultGatewayToken,
} as const;

/**
 * The `wrangler dev` arguments, with the secrets read from `varsFile` (see
 * {@link writeDevVarsFile}); `--ip` and `--port` in `extra` replace the defaults.
 */
export function workerDevArguments(
  configJson: string,
  varsFile: string,
  extra: readonly string[],
): string[] {
  const unless = (flag: string, value: string) => (extra.includes(flag) ? [] : [flag, value]);
  return [
    "dev",
    ...unless("--ip", "127.0.0.1"),
    ...unless("--port", String(localWorkerPort)),
    "--env-file",
    varsFile,
    "--var",
    `GATEWAY_URL:${localGatewayUrl}`,
    "--var",
    `STEPWISE_CONFIG:${configJson}`,
    ...extra,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { config } = await loadConfig({ stack: "dev", cwd: root });
  const extra = process.argv.slice(2);
  const portIndex = extra.lastIndexOf("--port");
  const port = portIndex === -1 ? localWorkerPort : extra[portIndex + 1];
  console.error(
    `companion Worker at http://127.0.0.1:${port} · admin token ${localAdminToken} · gateway ${localGatewayUrl} (stepwise dev)\n` +
      `try: export STEPWISE_ROTATE_TOKEN=${localAdminToken} STEPWISE_WORKER_URL=http://127.0.0.1:${port}`,
  );
  const varsFile = writeDevVarsFile(localWorkerSecrets);
  process.on("exit", () => varsFile.remove());
  const wrangler = spawn(
    path.join(root, "node_modules", ".bin", "wrangler"),
    workerDevArguments(workerViewText(config, { source: "Pulumi.dev.yaml" }), varsFile.path, extra),
    { cwd: root, stdio: "inherit", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => wrangler.kill(signal));
  wrangler.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
