/**
 * @module
 * How much `npm install stepwise-gateway` puts on disk: the bytes of every file under an app's
 * `node_modules/`, each file counted once (as `du` counts hard links), symbolic links not followed.
 * The package test (test/package/registry.test.ts) holds it to {@link installedSizeBudgetBytes};
 * the sizes benchmark shows it.
 */
import { execFile } from "node:child_process";
import { lstat, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/** An empty project's `node_modules/` after installing the package: at most 15 MB (1 MB = 10⁶ bytes). */
export const installedSizeBudgetBytes = 15_000_000;

/** Total bytes and packages under `directory` (a `node_modules/`). */
export async function installedSize(
  directory: string,
): Promise<{ readonly bytes: number; readonly packages: number }> {
  const seen = new Set<string>();
  let bytes = 0;
  const visit = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) {
        await visit(full);
        continue;
      }
      const info = await lstat(full);
      const identity = `${info.dev}:${info.ino}`;
      if (seen.has(identity)) continue;
      seen.add(identity);
      bytes += info.size;
    }
  };
  await visit(directory);
  return { bytes, packages: await countPackages(directory) };
}

/** Packages installed under `node_modules/` (scoped ones and nested ones included). */
async function countPackages(modules: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const full = path.join(modules, entry.name);
    if (entry.name.startsWith("@")) {
      count += await countPackages(full);
      continue;
    }
    count += 1;
    const nested = path.join(full, "node_modules");
    const inner = await readdir(nested).catch(() => undefined);
    if (inner !== undefined) count += await countPackages(nested);
  }
  return count;
}

/**
 * Packs the built package in `root` and installs the tarball into an empty project, as
 * `npm install stepwise-gateway` would (its dependencies from npm's cache when it has them), then
 * measures that project's `node_modules/`. The folders are removed afterwards.
 */
export async function measureInstall(
  root: string,
): Promise<{ readonly bytes: number; readonly packages: number }> {
  const work = await mkdtemp(path.join(tmpdir(), "stepwise-install-size-"));
  const run = promisify(execFile);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^npm_/i.test(name)) env[name] = value;
  env.npm_config_update_notifier = "false";
  try {
    const { stdout } = await run(
      "npm",
      ["pack", "--ignore-scripts", "--json", "--pack-destination", work],
      { cwd: root, env },
    );
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    if (!packed) throw new Error("npm pack reported nothing");
    const app = path.join(work, "app");
    await mkdir(app);
    await writeFile(
      path.join(app, "package.json"),
      JSON.stringify({ name: "app", private: true, type: "module" }),
    );
    await run(
      "npm",
      ["install", path.join(work, packed.filename), "--prefer-offline", "--no-audit", "--no-fund"],
      { cwd: app, env },
    );
    return await installedSize(path.join(app, "node_modules"));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
