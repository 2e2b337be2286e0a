/**
 * The installed size the package test and the sizes benchmark report: every file's bytes once
 * (a hard link is the same file, as `du` counts it), symbolic links not followed, packages counted
 * with scoped and nested ones.
 */
import { link, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { installedSize } from "../../../tools/bench/installed-size.ts";

let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe("installedSize", () => {
  it("counts each file once, follows no link and counts scoped and nested packages", async () => {
    directory = await mkdtemp(path.join(tmpdir(), "stepwise-size-"));
    const modules = path.join(directory, "node_modules");
    const file = async (relative: string, bytes: number) => {
      await mkdir(path.dirname(path.join(modules, relative)), { recursive: true });
      await writeFile(path.join(modules, relative), "x".repeat(bytes));
    };
    await file("a/index.js", 100);
    await file("@scope/b/index.js", 50);
    await file("a/node_modules/c/index.js", 25);
    await link(path.join(modules, "a/index.js"), path.join(modules, "@scope/b/same.js"));
    await mkdir(path.join(modules, ".bin"));
    await symlink("../a/index.js", path.join(modules, ".bin/a"));
    await symlink(directory, path.join(modules, "linked"));
    expect(await installedSize(modules)).toEqual({ bytes: 175, packages: 3 });
  });
});
