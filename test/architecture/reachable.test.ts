/**
 * No dead files: every TypeScript file of `src/` is reached, import by import (type-only imports
 * included), from an entry: the package's entries and the CLI (tools/build/build.ts `entries`),
 * the Worker (wrangler.jsonc `main`), and what the build itself imports from `src/` (the JSON
 * Schema's generator) or a tool a package script runs (`npm run dashboard`). A file nothing reaches is a stale copy or a forgotten one; it fails here.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { entries } from "../../tools/build/build.ts";
import { importsOf, sourceFiles } from "./imports.ts";

const root = path.resolve(import.meta.dirname, "../..");

/** The files reached from `roots` along `edges`, `.js` imports read as their `.ts` sources. */
function reached(
  roots: readonly string[],
  edges: (file: string) => readonly string[],
): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...edges(file));
  }
  return seen;
}

const srcFiles = sourceFiles("src").filter((file) => !file.endsWith(".d.ts"));
const known = new Set(srcFiles);
const edgesOf = (file: string) =>
  importsOf(file)
    .map(({ target }) => target.replace(/\.js$/, ".ts"))
    .filter((target) => known.has(target));

const worker = /"main":\s*"([^"]+)"/.exec(
  readFileSync(path.join(root, "wrangler.jsonc"), "utf8"),
)![1]!;
const buildImports = sourceFiles(path.join("tools", "build"))
  .flatMap(importsOf)
  .map(({ target }) => target)
  .filter((target) => known.has(target));

const scripts = Object.values(
  (
    JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts,
);
const scriptImports = [
  ...new Set(scripts.flatMap((script) => script.match(/tools\/[\w/.-]+\.ts/g) ?? [])),
]
  .flatMap(importsOf)
  .map(({ target }) => target)
  .filter((target) => known.has(target));

describe("every file of src/", () => {
  it("is reached from an entry, the Worker or the build", () => {
    const roots = [...Object.values(entries), worker, ...buildImports, ...scriptImports].map(
      (file) => path.normalize(file),
    );
    const live = reached(roots, edgesOf);
    expect(srcFiles.length).toBeGreaterThan(300);
    expect(srcFiles.filter((file) => !live.has(file))).toEqual([]);
  });

  it("would find a file nothing imports", () => {
    const graph: Record<string, string[]> = { "a.ts": ["b.ts"], "b.ts": [], "c.ts": ["b.ts"] };
    const live = reached(["a.ts"], (file) => graph[file] ?? []);
    expect(Object.keys(graph).filter((file) => !live.has(file))).toEqual(["c.ts"]);
  });
});
