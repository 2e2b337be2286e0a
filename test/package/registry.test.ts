/**
 * Stepwise adopted the way the README says, from a registry: a local one (Verdaccio, on 127.0.0.1
 * at a port chosen at run time, its storage in a temporary folder) that the packed package is
 * published to. In an empty folder whose `.npmrc` points at it, `npm install stepwise-gateway` by
 * name (lean: at most 15 MB, none of the optional peers), the README's app quickstart as written
 * against `npx stepwise dev`, `npx stepwise report` on a file, `npx stepwise demo` naming what to
 * add (exit 2), and, once the command it prints has added them, running on the package's
 * pre-built Worker; then a repository written by `stepwise init`, installed from the same
 * registry, with the README's platform commands: validate, the plan and its own `npm test`.
 *
 * Packages other than this one come through the registry from npm's configured registry, their
 * tarballs from npm's cache when it has them (`prefer-offline`, set in the environment). Needs
 * `npm run build` (the packed package is the built one).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { installedSize, installedSizeBudgetBytes } from "../../tools/bench/installed-size.ts";
import { documented, fencedBlock, projectRoot } from "../docs/documented.ts";
import { initGatewayRepo } from "../helpers/gateway-repo.ts";
import { type LocalRegistry, startLocalRegistry } from "../helpers/local-registry.ts";
import { startProcess } from "../helpers/processes.ts";

/** Installs and whole-repository runs: generous bounds, never a speed assertion. */
const slow = 600_000;

let work: string;
let registry: LocalRegistry;
let app: string;
/** The packed tarball's integrity: what an install from the registry must have installed. */
let integrity: string;

/**
 * The environment of a user's shell: none of the `npm_*` variables of the `npm test` that runs
 * this file (they would point npm at this checkout), no colour, CI (no prompts), and npm told to
 * take tarballs from its cache when it has them and to skip its notices.
 */
function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^npm_/i.test(name)) env[name] = value;
  return {
    ...env,
    CI: "true",
    NO_COLOR: "1",
    npm_config_prefer_offline: "true",
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
}

/** Runs a shell command as written, in `cwd`; `extra` is said out loud by the caller. */
async function shell(command: string, cwd: string, env: NodeJS.ProcessEnv = {}) {
  const started = startProcess("bash", ["-c", command], {
    cwd,
    env: { ...userEnvironment(), ...env },
  });
  try {
    const code = await started.exited;
    return { code, stdout: started.stdout(), stderr: started.stderr(), output: started.output() };
  } finally {
    await started.stop();
  }
}

/** The integrity of the stepwise-gateway a project's lockfile says it installed. */
async function installedIntegrity(project: string): Promise<string | undefined> {
  const lock = JSON.parse(await readFile(path.join(project, "package-lock.json"), "utf8")) as {
    packages: Record<string, { integrity?: string }>;
  };
  return lock.packages["node_modules/stepwise-gateway"]?.integrity;
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "stepwise-registry-"));
  const { stdout } = await promisify(execFile)(
    "npm",
    ["pack", "--ignore-scripts", "--json", "--pack-destination", work],
    { cwd: projectRoot, env: userEnvironment() },
  );
  const [packed] = JSON.parse(stdout) as { filename: string; integrity: string }[];
  if (!packed) throw new Error("npm pack reported nothing");
  integrity = packed.integrity;
  registry = await startLocalRegistry(path.join(work, "registry"));
  const published = await shell(
    `npm publish ${path.join(work, packed.filename)} --ignore-scripts --registry ${registry.url} ${registry.publishAuth}`,
    work,
  );
  if (published.code !== 0) throw new Error(`npm publish failed:\n${published.output}`);
  app = path.join(work, "app");
  await mkdir(app);
  await writeFile(
    path.join(app, "package.json"),
    `${JSON.stringify({ name: "app", private: true, type: "module" }, null, 2)}\n`,
  );
  await writeFile(path.join(app, ".npmrc"), registry.npmrc);
}, slow);

afterAll(async () => {
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("stepwise-gateway installed from a registry", () => {
  it(
    "installs by name, lean: at most 15 MB and none of the optional peers",
    async () => {
      const install = await shell(documented("npm install stepwise-gateway"), app);
      expect(install.code, install.output).toBe(0);
      // The registry's copy is the tarball this checkout packed (npm's registry has no
      // stepwise-gateway, so the name resolved nowhere else).
      expect(await installedIntegrity(app)).toBe(integrity);
      const { bytes, packages } = await installedSize(path.join(app, "node_modules"));
      expect(bytes, `${packages} packages, ${bytes} bytes`).toBeLessThanOrEqual(
        installedSizeBudgetBytes,
      );
      // The README's figure ("about 10 MB installed") is this measure, give or take 2 MB.
      const readme = await readFile(path.join(projectRoot, "README.md"), "utf8");
      const claimed = Number(/about (\d+) MB installed/.exec(readme)?.[1]);
      expect(Math.abs(bytes / 1_000_000 - claimed)).toBeLessThanOrEqual(2);
      for (const peer of ["cloudflare", "miniflare", "wrangler", "workerd", "@pulumi/pulumi"])
        expect(existsSync(path.join(app, "node_modules", peer)), peer).toBe(false);
    },
    slow,
  );

  it(
    "runs the README's app quickstart as written against npx stepwise dev",
    async () => {
      await writeFile(
        path.join(app, "gateway.yaml"),
        fencedBlock("README.md", "yaml", "id: my-gateway"),
      );
      await writeFile(
        path.join(app, "app.mjs"),
        fencedBlock("README.md", "js", "createGatewayClient"),
      );
      // `--port 0`: the test listens on a port chosen at run time, never on the fixed 8787; the
      // app is told where through the variable its code reads.
      const dev = startProcess(
        "bash",
        ["-c", `${documented("npx stepwise dev --file gateway.yaml")} --port 0`],
        { cwd: app, env: userEnvironment() },
      );
      onTestFinished(() => dev.stop().then(() => undefined));
      const [, base] = await dev.waitFor(/universal\s+(http:\/\/127\.0\.0\.1:\d+)\/v1\//);
      const call = await shell(documented("node app.mjs"), app, { STEPWISE_GATEWAY_URL: base });
      expect(call.code, `${call.output}\n--- stepwise dev:\n${dev.output()}`).toBe(0);
      expect(call.stdout.trim()).toMatch(/^anthropic \(step 0\): \S/);
    },
    slow,
  );

  it(
    "reports on a file without the cloudflare SDK",
    async () => {
      await copyFile(
        path.join(projectRoot, "test/__fixtures__/analytics/ae-export.json"),
        path.join(app, "export.json"),
      );
      const report = await shell(
        documented("npx stepwise report export.json --source analytics-engine"),
        app,
      );
      expect(report.code, report.output).toBe(0);
      expect(report.stdout).toMatch(/calls counted/);
    },
    slow,
  );

  it(
    "says which packages npx stepwise demo needs, in one line, exit 2",
    async () => {
      const demo = await shell("npx stepwise demo", app);
      expect(demo.code, demo.output).toBe(2);
      expect(demo.stderr.trim()).toBe(
        "stepwise demo needs miniflare and cloudflare, not installed with stepwise-gateway (optional peer dependencies): npm install --save-dev --save-exact miniflare@4.20260426.0 cloudflare@7.3.0",
      );
    },
    slow,
  );

  it(
    "runs the demo once the packages it named are added, on the package's pre-built Worker",
    async () => {
      const demo = await shell("npx stepwise demo", app);
      const install = /: (npm install .+)$/m.exec(demo.stderr)?.[1];
      expect(install).toBeDefined();
      const added = await shell(install!, app);
      expect(added.code, added.output).toBe(0);
      // A short run on this repository's example stack (the default story uses its policy
      // route): the phases, outages and rotation, in 30 calls.
      await copyFile(path.join(projectRoot, "Pulumi.dev.yaml"), path.join(app, "Pulumi.dev.yaml"));
      const run = await shell("npx stepwise demo --calls 30 --rate 30", app);
      expect(run.code, run.output).toBe(0);
      expect(run.stdout).toContain("nothing lost: 30 calls, 30 events recorded");
      expect(run.output).toContain("using the package's pre-built companion Worker");
    },
    slow,
  );

  it(
    "starts a gateway repository with init, installed from the registry, whose commands pass",
    async () => {
      const repo = path.join(work, "my-gateway");
      // The README's init command, with the installed package's CLI.
      const readmeInit = documented(
        "npx stepwise init my-gateway --account-id 0123456789abcdef0123456789abcdef",
      );
      const flags = readmeInit.split(" ").slice(4);
      await initGatewayRepo(
        repo,
        flags,
        path.join(app, "node_modules", "stepwise-gateway", "bin", "stepwise.js"),
      );
      await writeFile(path.join(repo, ".npmrc"), registry.npmrc);
      const install = await shell("npm install", repo);
      expect(install.code, install.output).toBe(0);
      expect(await installedIntegrity(repo)).toBe(integrity);
      for (const command of [
        documented("npx stepwise validate --stack dev"),
        documented("npx stepwise plan --stack dev"),
        documented("npm test"),
      ]) {
        const run = await shell(command, repo);
        expect(run.code, `${command}\n${run.output}`).toBe(0);
      }
    },
    slow,
  );
});
