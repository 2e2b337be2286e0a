/**
 * @module
 * How much `npm install stepwise-gateway` puts on disk: the bytes of every file under an app's
 * `node_modules/`, each file counted once (as `du` counts hard links), symbolic links not followed.
 * The package test (test/package/registry.test.ts) holds it to {@link installedSizeBudgetBytes};
 * the sizes benchmark shows it.
 */
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";

/** An empty project's `node_modules/` after installing the package: at most 15 MB. */
export const installedSizeBudgetBytes = 15 * 1024 * 1024;

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
