/**
 * The package can be published as it is: the tarball `npm pack` makes (of the package as built;
 * `npm test` builds dist/ first) passes publint and Are the Types Wrong, `npm publish --dry-run`
 * of it prints no warning, and every relative link of its markdown resolves inside it (the packed
 * README is what npm's page shows, so a link to an unshipped file would be a dead link there).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
/** Packing and linting read the whole tarball: a generous bound, never a speed assertion. */
const slow = 120_000;

let work: string;
let tarball: string;
let files: string[];

/** Runs a command to its end, whatever its exit code. */
async function settle(file: string, args: readonly string[], cwd: string) {
  try {
    const { stdout, stderr } = await run(file, args, {
      cwd,
      env: { ...process.env, npm_config_update_notifier: "false", NO_COLOR: "1" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === "number" ? failed.code : 1,
      stdout: failed.stdout ?? "",
      stderr: failed.stderr ?? "",
    };
  }
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "stepwise-publish-"));
  const { stdout } = await run(
    "npm",
    ["pack", "--ignore-scripts", "--json", "--pack-destination", work],
    { cwd: root },
  );
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  if (!packed) throw new Error("npm pack reported nothing");
  tarball = path.join(work, packed.filename);
  files = packed.files.map((file) => file.path);
}, slow);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("publishing the package", () => {
  it("ships the license, the changelog and the docs the README links", async () => {
    for (const file of ["LICENSE", "CHANGELOG.md", "README.md", "docs/client.md"])
      expect(files).toContain(file);
    const license = await readFile(path.join(root, "LICENSE"), "utf8");
    expect(license).toMatch(/Apache License\s+Version 2\.0/);
    const manifest = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as {
      license: string;
      private?: boolean;
    };
    expect(manifest.license).toBe("Apache-2.0");
    expect(manifest.private).toBeUndefined();
  });

  it("links only files it ships (or absolute URLs) from its markdown", async () => {
    const dead: string[] = [];
    for (const file of files.filter((name) => name.endsWith(".md"))) {
      const text = await readFile(path.join(root, file), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!) || target!.startsWith("#")) continue;
        const linked = path.posix.normalize(
          path.posix.join(path.posix.dirname(file), target!.split("#")[0]!),
        );
        if (!files.includes(linked)) dead.push(`${file} → ${target}`);
      }
    }
    expect(dead).toEqual([]);
  });

  it(
    "passes publint, strict",
    async () => {
      const linted = await settle(bin("publint"), ["run", tarball, "--strict"], work);
      expect(linted.code, `${linted.stdout}${linted.stderr}`).toBe(0);
      expect(linted.stdout).toContain("All good!");
    },
    slow,
  );

  it(
    "passes Are the Types Wrong for an ES-module-only package",
    async () => {
      // `esm-only`: the package has no CommonJS entry, so only the ESM resolutions count.
      const checked = await settle(bin("attw"), [tarball, "--profile", "esm-only"], work);
      expect(checked.code, `${checked.stdout}${checked.stderr}`).toBe(0);
    },
    slow,
  );

  it(
    "publishes cleanly in a dry run: no warning",
    async () => {
      // A registry where nothing listens, with a made-up token, so npm has nothing to warn about
      // a missing login (its look-up of the version fails at once: no retries); what is left
      // would be a warning about the package itself.
      const registry = "http://127.0.0.1:9/";
      const published = await settle(
        "npm",
        [
          "publish",
          tarball,
          "--dry-run",
          "--ignore-scripts",
          "--fetch-retries",
          "0",
          "--registry",
          registry,
          "--//127.0.0.1:9/:_authToken=dry-run-only",
        ],
        work,
      );
      expect(published.code, published.stderr).toBe(0);
      expect(published.stdout).toContain("+ stepwise-gateway@");
      expect(published.stderr.split("\n").filter((line) => line.startsWith("npm warn"))).toEqual(
        [],
      );
    },
    slow,
  );
});
