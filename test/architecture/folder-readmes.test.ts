/**
 * A folder's README.md says what is in it (the folder headers ARCHITECTURE.md points to): every
 * folder of `src/emulator/`, `src/wire/` and `src/client/rest/` has one, and every README of
 * `src/` names each TypeScript file beside it, so a new file is placed in its folder's story.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** Every folder under `top`, relative to the root, `top` itself included. */
function foldersUnder(top: string): string[] {
  return [
    top,
    ...readdirSync(path.join(root, top), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name))),
  ];
}

const withReadme = foldersUnder("src").filter((folder) =>
  existsSync(path.join(root, folder, "README.md")),
);

describe("folder READMEs", () => {
  it("every folder of src/emulator/, and src/wire/ and src/client/rest/, has a README.md", () => {
    const needed = [
      ...foldersUnder(path.join("src", "emulator")).filter((folder) => folder !== "src/emulator"),
      path.join("src", "wire"),
      path.join("src", "client", "rest"),
    ];
    expect(needed.filter((folder) => !withReadme.includes(folder))).toEqual([]);
  });

  it.each(withReadme)("%s/README.md names each file of its folder", (folder) => {
    const readme = readFileSync(path.join(root, folder, "README.md"), "utf8");
    const files = readdirSync(path.join(root, folder)).filter((name) => name.endsWith(".ts"));
    expect(files.filter((file) => !readme.includes(file))).toEqual([]);
  });
});
