/**
 * @module
 * test/ mirrors src/: a folder of tests is named after the folder of code it tests
 * (`test/worker/pool/` holds the tests of `src/worker/pool/`), so the tests of a file are found by
 * its path. The only other folders are the ones listed below, each with its reason; a new one fails
 * here until it either mirrors a folder of src/, infra/ or tools/, or is added with a reason.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** Folders of test/ that test no single folder of src/, and why. */
const besides: Readonly<Record<string, string>> = {
  __fixtures__: "recorded answers and configs the tests read",
  architecture: "the repository's shape: layers, the test/ mirror, the map's file references",
  docs: "every documented command, run as written",
  e2e: "whole-system runs across client, Worker, emulator and analytics",
  helpers: "the shared msw server and process helpers",
  package: "the packed tarball as a user installs it",
  setup: "vitest setup files",
  "emulator/cloudflare-examples":
    "Cloudflare's documented examples, sent as written to the emulator",
  "pulumi/fixtures": "stack files the Pulumi tests load",
};

/** Top folders of test/ that mirror a folder of the repository other than src/. */
const mirrorsOutsideSrc = ["infra", "tools"];

function folders(directory: string): string[] {
  return readdirSync(path.join(root, directory), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) =>
      path.relative(directory, path.join(path.relative(root, entry.parentPath), entry.name)),
    )
    .map((folder) => folder.split(path.sep).join("/"));
}

/** The folders of test/ that neither mirror the repository nor are listed in `besides`. */
function unmirrored(testFolders: readonly string[], exists: (p: string) => boolean): string[] {
  return testFolders.filter((folder) => {
    const listed = Object.keys(besides).some(
      (name) => folder === name || folder.startsWith(`${name}/`),
    );
    if (listed) return false;
    const [top] = folder.split("/");
    const mirrored = mirrorsOutsideSrc.includes(top!) ? folder : `src/${folder}`;
    return !exists(mirrored);
  });
}

describe("test/ mirrors src/", () => {
  it("every folder of test/ is named after a folder of src/ (or infra/, tools/), or listed with its reason", () => {
    expect(unmirrored(folders("test"), (p) => existsSync(path.join(root, p)))).toEqual([]);
  });

  it("would name a folder that breaks the mirror", () => {
    const exists = (p: string) => ["src/worker", "src/worker/pool", "tools/bench"].includes(p);
    expect(
      unmirrored(["worker", "worker/pool", "worker-pool", "tools/bench", "e2e", "docs/x"], exists),
    ).toEqual(["worker-pool"]);
  });

  it("every folder listed besides the mirror still exists", () => {
    const gone = Object.keys(besides).filter((name) => !existsSync(path.join(root, "test", name)));
    expect(gone).toEqual([]);
  });
});
