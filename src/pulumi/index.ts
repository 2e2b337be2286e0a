/**
 * @module
 * Stepwise's Pulumi components, for a team's own Pulumi program: one component per concern
 * (`Gateway` per gateway, `KeyVault` for the companion Worker, `Byok` for keys kept in Secrets
 * Store), `buildStack(config)` to declare everything one validated config holds, and
 * `buildCurrentStack()` to read the running stack's config and build it. The companion Worker's
 * bundle ships pre-built with the package, so a program needs no wrangler. `@pulumi/pulumi` and
 * `@pulumi/cloudflare` are peer dependencies (the `cloudflare` SDK too, for BYOK provider
 * configs and routes with a split).
 *
 * @example
 * // index.ts of a Pulumi project whose stack files hold a `stepwise:` config
 * import { buildCurrentStack } from "stepwise-gateway/pulumi";
 * const stack = buildCurrentStack();
 * export const gateways = stack.outputs.gateways;
 */
export { Byok, type ByokArgs, type ByokKey, byokSecretName } from "./byok.ts";
export {
  checkDeploySecrets,
  readStackConfig,
  type StackConfig,
  type StackSecrets,
} from "./config.ts";
export { InfraError, type InfraErrorCode } from "./errors.ts";
export {
  Gateway,
  type GatewayArgs,
  type GatewayByokArgs,
  type RouteOutputs,
} from "./gateway.ts";
export { KeyVault, type KeyVaultArgs } from "./key-vault.ts";
export { buildCurrentStack } from "./program.ts";
export { ByokProviderConfig, type ByokProviderConfigArgs } from "./provider-config.ts";
export {
  type BuildStackOptions,
  type BuiltStack,
  buildStack,
  byokProviders,
  deploysWorker,
  type GatewayStackOutput,
  type StackOutputs,
} from "./stack.ts";
export { VersionedDynamicRoute, type VersionedDynamicRouteArgs } from "./versioned-route.ts";
export { readWorkerBundle, type WorkerBundle, workerBuildCommand } from "./worker-bundle.ts";
