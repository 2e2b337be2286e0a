/**
 * Files stay small enough to read in one go: every TypeScript file of `src/`, `tools/` and
 * `infra/` has at most 400 lines (split past about 300, into files whose names say the job;
 * CONTRIBUTING.md's budgets). Tests are not held to it: a table of cases reads fine long.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const maxLines = 400;

function linesOf(file: string): number {
  const text = readFileSync(path.join(root, file), "utf8");
  return text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
}

const files = ["src", "tools", "infra"].flatMap((top) =>
  readdirSync(path.join(root, top), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name))),
);

describe("file sizes", () => {
  it(`every file of src/, tools/ and infra/ has at most ${maxLines} lines`, () => {
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((file) => ({ file, lines: linesOf(file) }))
      .filter(({ lines }) => lines > maxLines)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long, "split these into files whose names say the job").toEqual([]);
  });
});
