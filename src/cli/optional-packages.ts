/**
 * @module
 * The packages only some commands need, which the package declares as optional peer
 * dependencies so that the client, `validate`, `dev` and `report` on files install without them:
 * `stepwise demo` and `stepwise chaos` run the companion Worker in workerd (miniflare) and read
 * the emulator's Secrets Store with the `cloudflare` SDK, `stepwise report --source logs` reads
 * gateway logs with that SDK, `stepwise report --engine duckdb` reads an events file with DuckDB,
 * and `stepwise plan` runs the Pulumi program. Each of those commands
 * asks {@link requireOptionalPackages} before loading its code; a missing package is a usage error
 * (exit 2, one line, no stack trace) that says what to install.
 */
import { createRequire } from "node:module";
import { StepwiseError } from "../errors/index.ts";

/**
 * A command needs a package the install left out. Exit code 2, like a usage error: the command
 * cannot run as installed, and the message is the fix (no help hint follows: the options were
 * fine).
 */
export class OptionalPackageError extends StepwiseError {
  static override readonly kind: string = "stepwise.OptionalPackageError";
  readonly exitCode = 2;
  constructor(
    message: string,
    readonly missing: readonly string[],
  ) {
    super({ code: "optional_package_missing", message });
    this.name = "OptionalPackageError";
  }
}

/** Every optional peer dependency, with the version this release is tested with. */
export const optionalPackages = {
  cloudflare: "7.3.0",
  miniflare: "4.20260426.0",
  wrangler: "4.86.0",
  "@pulumi/pulumi": "3.248.0",
  "@pulumi/cloudflare": "6.22.1",
  // The client's OpenTelemetry recorder (`stepwise-gateway/client/otel`) loads it itself and
  // emits nothing without it.
  "@opentelemetry/api": "1.9.1",
  // `stepwise report --engine duckdb` (and `auto` on a large file, when it is there).
  "@duckdb/node-api": "1.5.6-r.1",
} as const;

export type OptionalPackage = keyof typeof optionalPackages;

/**
 * What the local system of `stepwise demo` and `stepwise chaos` loads beyond the lean install:
 * workerd for the companion Worker (miniflare) and the `cloudflare` SDK, which reads the
 * emulator's Secrets Store. (Its Worker bundle is built by wrangler in a checkout of Stepwise, and
 * is the package's pre-built one elsewhere.)
 */
export const localSystemPackages: readonly OptionalPackage[] = ["miniflare", "cloudflare"];

/** The packages `stepwise plan` loads: the Pulumi program's. */
export const pulumiPackages: readonly OptionalPackage[] = ["@pulumi/pulumi", "@pulumi/cloudflare"];

/** True when `name` can be loaded from where the CLI runs. */
export type PackageResolver = (name: OptionalPackage) => boolean;

/**
 * Node's own resolution from this module, as the command's `import` would resolve it: a package
 * that is there but exports no `require` entry still counts as installed.
 */
export const installedPackage: PackageResolver = (name) => {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND";
  }
};

/** The install command for `names`, at the versions this release is tested with. */
export function installCommand(names: readonly OptionalPackage[]): string {
  return `npm install --save-dev --save-exact ${names.map((name) => `${name}@${optionalPackages[name]}`).join(" ")}`;
}

/**
 * Throws unless every package `command` needs is installed.
 * @param command what needs them, as the user typed it (`stepwise demo`)
 * @param names the packages it loads
 * @param resolve how to tell (default: Node's resolution from the CLI)
 * @throws {OptionalPackageError} naming the missing packages and the command that installs them.
 */
export function requireOptionalPackages(
  command: string,
  names: readonly OptionalPackage[],
  resolve: PackageResolver = installedPackage,
): void {
  const missing = names.filter((name) => !resolve(name));
  if (missing.length === 0) return;
  const list = missing.join(" and ");
  throw new OptionalPackageError(
    `${command} needs ${list}, not installed with stepwise-gateway (${missing.length === 1 ? "an optional peer dependency" : "optional peer dependencies"}): ${installCommand(missing)}`,
    missing,
  );
}
