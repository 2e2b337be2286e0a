/**
 * @module
 * Every relative import of a file, read with TypeScript's own pre-processor (static, dynamic and
 * type-only alike), for the tests of the repository's shape: the import graph's layers and
 * cycles, and that every file of `src/` is reachable from an entry.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const root = path.resolve(import.meta.dirname, "../..");

/** One relative import: the file, its line, and the file it names (relative to the root). */
export interface ImportEdge {
  readonly from: string;
  readonly line: number;
  readonly target: string;
}

/** The `.ts`, `.js` and `.mjs` files under `directory`, relative to the root. */
export function sourceFiles(directory: string): string[] {
  return readdirSync(path.join(root, directory), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs)$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/** The relative imports of `file`: static, dynamic and type-only, as TypeScript reads them. */
export function importsOf(file: string): ImportEdge[] {
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
