/**
 * The layers run one way. Each folder of `src/` may import only the folders listed for it below
 * (lower layers); `infra/` (this repository's Pulumi program) and `tools/` sit on top of `src/`, and
 * nothing in `src/` imports them or `test/`. The test reads every import (static, dynamic, type-only) with TypeScript's own
 * pre-processor, so a new upward import or folder cycle fails here with the file and line.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** What each folder of src/ may import (besides itself and packages). Lower layers first. */
const allowed: Readonly<Record<string, readonly string[]>> = {
  errors: [],
  config: ["errors"],
  providers: ["errors"],
  routes: ["config", "providers"],
  client: ["errors", "config", "providers", "routes"],
  worker: ["errors", "config", "providers", "routes"],
  "worker-admin": ["errors"],
  emulator: ["errors", "config", "providers", "routes"],
  // The Pulumi components (the `/pulumi` entry): config and routes compile into resources.
  pulumi: ["errors", "config", "providers", "routes"],
  analytics: ["errors", "config", "providers", "routes", "client", "worker"],
  demo: [
    "errors",
    "config",
    "providers",
    "routes",
    "client",
    "emulator",
    "analytics",
    "worker-admin",
  ],
  chaos: [
    ...["errors", "config", "providers", "routes", "client", "emulator", "analytics"],
    ...["worker-admin", "demo"],
  ],
  cli: [
    ...["errors", "config", "providers", "routes", "client", "emulator", "analytics"],
    ...["worker-admin", "demo", "chaos"],
  ],
};

interface ImportEdge {
  readonly from: string;
  readonly line: number;
  readonly target: string;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(path.join(root, directory), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs)$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(path.join(root, file), "utf8");
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles
    .filter((imported) => imported.fileName.startsWith("."))
    .map((imported) => ({
      from: file,
      line:
        ts.getLineAndCharacterOfPosition(
          ts.createSourceFile(file, text, ts.ScriptTarget.Latest),
          imported.pos,
        ).line + 1,
      target: path.relative(root, path.resolve(root, path.dirname(file), imported.fileName)),
    }));
}

/** `src/<folder>/…` → folder; anything else → its top-level directory. */
function layerOf(file: string): string {
  const [top, folder] = file.split(path.sep);
  return top === "src" ? (folder ?? top) : (top ?? file);
}

const srcEdges = sourceFiles("src").flatMap(importsOf);

describe("import graph", () => {
  it("lists every folder of src/", () => {
    const folders = readdirSync(path.join(root, "src"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual(Object.keys(allowed).sort());
  });

  it("has no upward import: each folder imports only the layers below it", () => {
    const violations = srcEdges
      .filter((edge) => {
        const from = layerOf(edge.from);
        const to = layerOf(edge.target);
        return from !== to && !(allowed[from] ?? []).includes(to);
      })
      .map((edge) => `${edge.from}:${edge.line} imports ${edge.target}`);
    expect(violations).toEqual([]);
  });

  it("src/ never imports infra/, tools/ or test/", () => {
    const outside = srcEdges
      .filter((edge) => !edge.target.startsWith(`src${path.sep}`))
      .map((edge) => `${edge.from}:${edge.line} imports ${edge.target}`);
    expect(outside).toEqual([]);
  });

  it("infra/ imports only the Pulumi components' entry by the package's name, as a team's program does", () => {
    const imports = sourceFiles("infra").flatMap((file) =>
      ts
        .preProcessFile(readFileSync(path.join(root, file), "utf8"), true, true)
        .importedFiles.map((imported) => `${file} imports ${imported.fileName}`),
    );
    expect(imports).toEqual(["infra/index.ts imports stepwise-gateway/pulumi"]);
  });

  it("has no folder cycle", () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of srcEdges) {
      const from = layerOf(edge.from);
      const to = layerOf(edge.target);
      if (from === to) continue;
      graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
    const cycles: string[] = [];
    const visit = (node: string, trail: string[]) => {
      if (trail.includes(node)) {
        cycles.push([...trail.slice(trail.indexOf(node)), node].join(" → "));
        return;
      }
      for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });

  it("the allowed table itself runs one way (no folder may import one that imports it)", () => {
    for (const [folder, lower] of Object.entries(allowed)) {
      for (const other of lower)
        expect(allowed[other] ?? [], `${other} ↔ ${folder}`).not.toContain(folder);
    }
  });
});
