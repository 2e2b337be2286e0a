/**
 * @module
 * The Stepwise config: one zod schema, `parseConfig` for values from anywhere, `loadConfig` for
 * `Pulumi.<stack>.yaml` or any YAML/JSON file, and the companion Worker's view of it
 * (`workerViewText` to build it, `parseWorkerView` to read it).
 */
export { findConfigProblems } from "./checks.ts";
export {
  type CredentialPath,
  type CredentialSettings,
  credentialPathSchema,
  credentialPaths,
  describeCredentialPath,
  type ResolvedCredential,
  resolveCredentialPath,
  unifiedBillingProviders,
} from "./credential-paths.ts";
export {
  byokProviders,
  deploysWorker,
  findMissingSecrets,
  type PresentSecrets,
  secretsInConfig,
} from "./deploy-secrets.ts";
export {
  closestName,
  type DocumentIssue,
  documentIssues,
  editDistance,
  formatIssues,
  formatPath,
  type Locate,
  locatedIssue,
  mergeIssues,
  sortByLine,
} from "./document.ts";
export { ConfigError, type ConfigErrorCode, type ConfigIssue } from "./errors.ts";
export {
  type ConfigFinding,
  type FindingSeverity,
  formatFindingLines,
  type LocatedFinding,
  locateFindings,
  throwOnErrorFindings,
} from "./findings.ts";
export {
  type ConfigInput,
  configNamespace,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  loadConfigInput,
  parseConfigText,
  readConfigInput,
  readConfigText,
} from "./load.ts";
export {
  findInputIssues,
  type InputIssues,
  type ParseConfigOptions,
  parseConfig,
} from "./parse.ts";
export * from "./policy-schema.ts";
export { type SalvagedConfig, salvageConfig } from "./salvage.ts";
export * from "./schema.ts";
export {
  type ParseWorkerViewOptions,
  parseWorkerView,
  type WorkerView,
  type WorkerViewGateway,
  workerViewGatewaySchema,
  workerViewSchema,
  workerViewVersion,
} from "./worker-view.ts";
export {
  findWorkerViewProblems,
  maxWorkerVariableBytes,
  type WorkerViewTextOptions,
  workerServedProviders,
  workerView,
  workerViewText,
} from "./worker-view-build.ts";
export { type ReadDocumentResult, readYamlDocument } from "./yaml-document.ts";
