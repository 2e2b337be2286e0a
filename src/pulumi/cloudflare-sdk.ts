/**
 * @module
 * The official `cloudflare` SDK, which the two dynamic resources (`ByokProviderConfig`,
 * `VersionedDynamicRoute`) call. It is an optional peer dependency: a program whose gateways use
 * neither BYOK nor percentage splits runs without it, and one that does is told, when it
 * declares such a resource, which package to install.
 *
 * Loaded with `require` so that Pulumi, which serializes each dynamic provider into the state,
 * writes the module as `require("cloudflare")` rather than its code.
 */
import { createRequire } from "node:module";
import { InfraError } from "./errors.ts";

type CloudflareSdk = typeof import("cloudflare");

/** The SDK, or undefined when it is not installed. */
export function optionalCloudflareSdk(): CloudflareSdk | undefined {
  try {
    return createRequire(import.meta.url)("cloudflare") as CloudflareSdk;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND") return undefined;
    throw error;
  }
}

/**
 * Throws unless the SDK is installed.
 * @param resource what needs it, named in the message
 * @throws {InfraError} `optional_package_missing`, naming the install command.
 */
export function expectCloudflareSdk(sdk: unknown, resource: string): void {
  if (sdk !== undefined) return;
  throw new InfraError({
    code: "optional_package_missing",
    message: `${resource} calls Cloudflare's API through the \`cloudflare\` SDK, which is not installed: npm install --save-exact cloudflare@7.3.0`,
  });
}
