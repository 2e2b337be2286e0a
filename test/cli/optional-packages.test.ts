/**
 * The commands that need a package the lean install leaves out say which one and how to install
 * it, with exit code 2, before loading any of their code. A resolver that reports packages
 * missing stands in for an install without them (test/package/registry.test.ts runs the real
 * thing: the package installed from a registry, without the dev tools).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chaosCommand } from "../../src/cli/commands/chaos.ts";
import { demoCommand } from "../../src/cli/commands/demo.ts";
import { planCommand } from "../../src/cli/commands/plan.ts";
import { reportCommand } from "../../src/cli/commands/report.ts";
import { exitCodeOf } from "../../src/cli/exit-codes.ts";
import {
  installedPackage,
  type OptionalPackage,
  OptionalPackageError,
  optionalPackages,
  type PackageResolver,
  requireOptionalPackages,
} from "../../src/cli/optional-packages.ts";

const root = path.resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

/** An install that has every optional package but `absent`. */
const without =
  (...absent: OptionalPackage[]): PackageResolver =>
  (name) =>
    !absent.includes(name);

/** What a command's action threw. */
async function failure(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("requireOptionalPackages", () => {
  it("passes when every package is installed", () => {
    expect(() =>
      requireOptionalPackages("stepwise demo", ["miniflare", "cloudflare"], without()),
    ).not.toThrow();
  });

  it("names only the missing packages, with the install command at the tested versions", () => {
    const error = (() => {
      try {
        requireOptionalPackages("stepwise demo", ["miniflare", "cloudflare"], without("miniflare"));
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(OptionalPackageError.isInstance(error)).toBe(true);
    const missing = error as OptionalPackageError;
    expect(missing.missing).toEqual(["miniflare"]);
    expect(missing.message).toBe(
      "stepwise demo needs miniflare, not installed with stepwise-gateway (an optional peer dependency): npm install --save-dev --save-exact miniflare@4.20260426.0",
    );
    expect(missing.message).not.toContain("\n");
    expect(exitCodeOf(missing)).toBe(2);
  });

  it("names every missing package at once", () => {
    expect(() =>
      requireOptionalPackages(
        "stepwise plan",
        ["@pulumi/pulumi", "@pulumi/cloudflare"],
        without("@pulumi/pulumi", "@pulumi/cloudflare"),
      ),
    ).toThrow(
      "stepwise plan needs @pulumi/pulumi and @pulumi/cloudflare, not installed with stepwise-gateway (optional peer dependencies): npm install --save-dev --save-exact @pulumi/pulumi@3.248.0 @pulumi/cloudflare@6.22.1",
    );
  });

  it("tells an installed package from a missing one with Node's resolution", () => {
    expect(installedPackage("cloudflare")).toBe(true);
    expect(installedPackage("miniflare")).toBe(true);
    expect(installedPackage("stepwise-no-such-package" as OptionalPackage)).toBe(false);
  });
});

describe("the optional packages are the package's optional peers", () => {
  it("declares each as an optional peer, at the version the checkout tests with", () => {
    for (const [name, version] of Object.entries(optionalPackages)) {
      expect(manifest.dependencies[name], `${name} is a run-time dependency`).toBeUndefined();
      expect(manifest.devDependencies[name]).toBe(version);
      expect(manifest.peerDependencies[name]).toBe(`^${version}`);
      expect(manifest.peerDependenciesMeta[name]?.optional).toBe(true);
    }
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(
      Object.keys(optionalPackages).sort(),
    );
  });
});

describe("the commands that need them", () => {
  it("stepwise demo says to install miniflare and cloudflare before loading the demo", async () => {
    const error = await failure(() =>
      demoCommand({ resolvePackage: without("miniflare", "cloudflare") })
        .exitOverride()
        .parseAsync([], { from: "user" }),
    );
    expect((error as Error).message).toContain(
      "stepwise demo needs miniflare and cloudflare, not installed with stepwise-gateway",
    );
    expect(exitCodeOf(error as OptionalPackageError)).toBe(2);
  });

  it("stepwise chaos needs the same local system", async () => {
    const error = await failure(() =>
      chaosCommand({ resolvePackage: without("miniflare") })
        .exitOverride()
        .parseAsync(["--quick"], { from: "user" }),
    );
    expect((error as Error).message).toMatch(/^stepwise chaos needs miniflare, /);
  });

  it("stepwise plan says to install Pulumi's packages", async () => {
    const error = await failure(() =>
      planCommand({ resolvePackage: without("@pulumi/cloudflare") })
        .exitOverride()
        .parseAsync(["--stack", "dev"], { from: "user" }),
    );
    expect((error as Error).message).toMatch(/^stepwise plan needs @pulumi\/cloudflare, /);
  });

  it("stepwise report --source logs needs the cloudflare SDK; an events file does not", async () => {
    const env = { CLOUDFLARE_API_TOKEN: "token", CLOUDFLARE_ACCOUNT_ID: "a".repeat(32) };
    const logs = await failure(() =>
      reportCommand({ env, resolvePackage: without("cloudflare"), write: () => undefined })
        .exitOverride()
        .parseAsync(["--source", "logs", "--gateway", "chat-prod"], { from: "user" }),
    );
    expect((logs as Error).message).toMatch(/^stepwise report --source logs needs cloudflare, /);
    const file = await failure(() =>
      reportCommand({ env, resolvePackage: without("cloudflare"), write: () => undefined })
        .exitOverride()
        .parseAsync([path.join(root, "test/__fixtures__/events/no-such-file.jsonl")], {
          from: "user",
        }),
    );
    expect(OptionalPackageError.isInstance(file)).toBe(false);
  });

  it("stepwise report --engine duckdb needs @duckdb/node-api; --engine auto reads without it", async () => {
    const events = path.join(root, "test/__fixtures__/analytics/duckdb-engine.jsonl");
    const duckdb = await failure(() =>
      reportCommand({ resolvePackage: without("@duckdb/node-api"), write: () => undefined })
        .exitOverride()
        .parseAsync([events, "--engine", "duckdb"], { from: "user" }),
    );
    expect((duckdb as Error).message).toBe(
      "stepwise report --engine duckdb needs @duckdb/node-api, not installed with stepwise-gateway (an optional peer dependency): npm install --save-dev --save-exact @duckdb/node-api@1.5.6-r.1",
    );
    expect(exitCodeOf(duckdb as OptionalPackageError)).toBe(2);
    let printed = "";
    await reportCommand({
      resolvePackage: without("@duckdb/node-api"),
      write: (text) => {
        printed += text;
      },
    })
      .exitOverride()
      .parseAsync([events, "--json"], { from: "user" });
    expect(JSON.parse(printed).counted).toBe(3);
  });
});
