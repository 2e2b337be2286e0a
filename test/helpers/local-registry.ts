/**
 * A local npm registry for the tests: Verdaccio in a child process on 127.0.0.1 at a port chosen
 * at run time, with its config and storage in a folder the test owns. What is published to it is
 * served from there; every other package is proxied from the registry npm is configured with
 * (`npm config get registry`), whose tarballs npm then takes from its own cache when it has them.
 * `stop()` ends the process; the folder is the test's to remove.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type StartedProcess, startProcess } from "./processes.ts";

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** npm's option that lets `npm publish` publish here: `--//127.0.0.1:<port>/:_authToken=…`. */
  readonly publishAuth: string;
  /** `.npmrc` text that sends installs here (anyone may read: installs carry no token). */
  readonly npmrc: string;
  readonly process: StartedProcess;
  stop(): Promise<void>;
}

/** The registry npm would use without us: where the proxied packages come from. */
function upstreamRegistry(): string {
  const configured = process.env.npm_config_registry ?? "https://registry.npmjs.org/";
  return configured.endsWith("/") ? configured : `${configured}/`;
}

function configuration(directory: string, upstream: string): string {
  const storage = path.join(directory, "storage");
  return `storage: ${JSON.stringify(storage)}
auth:
  htpasswd:
    file: ${JSON.stringify(path.join(directory, "htpasswd"))}
    max_users: 10
uplinks:
  upstream:
    url: ${JSON.stringify(upstream)}
    timeout: 60s
    max_fails: 5
packages:
  "stepwise-gateway":
    access: $all
    publish: $authenticated
  "@*/*":
    access: $all
    publish: $authenticated
    proxy: upstream
  "**":
    access: $all
    publish: $authenticated
    proxy: upstream
max_body_size: 100mb
log: { type: stdout, format: json, level: error }
`;
}

/** Starts Verdaccio with its config and storage under `directory`. */
export async function startLocalRegistry(directory: string): Promise<LocalRegistry> {
  await mkdir(path.join(directory, "storage"), { recursive: true });
  const configFile = path.join(directory, "config.yaml");
  await writeFile(configFile, configuration(directory, upstreamRegistry()));
  const verdaccio = pathToFileURL(createRequire(import.meta.url).resolve("verdaccio")).href;
  const script = `
const { runServer } = await import(${JSON.stringify(verdaccio)});
const server = await runServer(${JSON.stringify(configFile)});
server.listen(0, "127.0.0.1", () => console.log("stepwise-registry-port " + server.address().port));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
`;
  const started = startProcess(process.execPath, ["--input-type=module", "-e", script], {
    cwd: directory,
  });
  try {
    const [, port] = await started.waitFor(/stepwise-registry-port (\d+)/);
    const url = `http://127.0.0.1:${port}/`;
    const token = await addUser(url);
    return {
      url,
      publishAuth: `--//127.0.0.1:${port}/:_authToken=${token}`,
      npmrc: `registry=${url}\n`,
      process: started,
      stop: async () => {
        await started.stop();
      },
    };
  } catch (error) {
    await started.stop();
    throw error;
  }
}

/** Creates the publishing user (npm's `adduser` request) and returns its token. */
async function addUser(url: string): Promise<string> {
  const name = "stepwise-test";
  const response = await fetch(new URL(`-/user/org.couchdb.user:${name}`, url), {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: "local-registry-only", type: "user", roles: [] }),
  });
  const body = (await response.json()) as { token?: string };
  if (!response.ok || body.token === undefined)
    throw new Error(`the local registry refused to add a user: HTTP ${response.status}`);
  return body.token;
}
