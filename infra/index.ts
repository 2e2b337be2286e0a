/**
 * @module
 * This repository's own Pulumi program (`pulumi up -s <stack>`), the same program
 * `stepwise init` writes for a team: it reads the stack's `stepwise:*` config and builds it with
 * the package's components (`src/pulumi/`, published as `stepwise-gateway/pulumi`). Every named
 * export is a stack output.
 */
import { buildCurrentStack } from "stepwise-gateway/pulumi";

const stack = buildCurrentStack();

/** Per gateway: `universalUrl`, `compatUrl` (OpenAI SDK `baseURL`) and its routes' ids. */
export const gateways = stack.outputs.gateways;
/** The companion Worker's URL, when `worker.workersDevSubdomain` is set. */
export const workerUrl = stack.outputs.workerUrl;
/** The Workers KV namespace holding provider keys. */
export const kvNamespaceId = stack.outputs.kvNamespaceId;
/** The Secrets Store holding BYOK keys, when a gateway uses BYOK. */
export const secretsStoreId = stack.outputs.secretsStoreId;
