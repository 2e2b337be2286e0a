/**
 * A repository `stepwise init` wrote, ready to run without a registry: `initGatewayRepo` runs the
 * built CLI's `init` with flags (as CI would), and `linkInstalledPackages` gives the repository a
 * `node_modules/` whose packages are this checkout's (the package itself under its own name).
 * The registry test installs the same repository from a real registry instead, calling
 * `initGatewayRepo` and then `npm install`.
 */
import { execFile } from "node:child_process";
import { mkdir, readdir, readFile, symlink } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

export const projectRoot = path.resolve(import.meta.dirname, "../..");

/** The flags the tests pass: a complete answer, so nothing is asked. */
export const initFlags: readonly string[] = [
  "--account-id",
  "0123456789abcdef0123456789abcdef",
  "--stack",
  "staging",
  "--gateway",
  "support-bot",
];

/**
 * Runs `stepwise init <directory> ...flags` with the built CLI (`npm run build:js` first), as a
 * non-interactive process (no TTY, CI=true).
 * @param stepwise the command to run: default this checkout's `bin/stepwise.js`; the registry
 *   test passes the installed package's.
 */
export async function initGatewayRepo(
  directory: string,
  flags: readonly string[] = initFlags,
  stepwise: string = path.join(projectRoot, "bin/stepwise.js"),
): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [stepwise, "init", directory, ...flags], {
    env: { ...process.env, CI: "true", NO_COLOR: "1" },
  });
}

/** `node_modules/` for the repository: every package of this checkout, and this package by name. */
export async function linkInstalledPackages(directory: string): Promise<void> {
  const modules = path.join(directory, "node_modules");
  await mkdir(modules, { recursive: true });
  const source = path.join(projectRoot, "node_modules");
  for (const entry of await readdir(source)) {
    if (entry === ".package-lock.json") continue;
    await symlink(path.join(source, entry), path.join(modules, entry));
  }
  const { name } = JSON.parse(await readFile(path.join(projectRoot, "package.json"), "utf8")) as {
    name: string;
  };
  const scope = path.dirname(name);
  if (scope !== ".") await mkdir(path.join(modules, scope), { recursive: true });
  await symlink(projectRoot, path.join(modules, name));
}
