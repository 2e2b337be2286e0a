/**
 * @module
 * Runs the Pulumi program (or `buildStack`) against `pulumi.runtime.setMocks` and records every
 * resource: type token, name, parent, options, and the inputs the engine would receive, with the
 * inputs Pulumi would treat as secret marked as such.
 *
 * Pulumi's mock state is process-global: each test file runs in its own worker (vitest's default
 * isolation) and calls `installMocks` once per run, before importing the program.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as pulumi from "@pulumi/pulumi";
import { parse } from "yaml";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
export const fixtureBundlePath = path.join(repoRoot, "test/pulumi/fixtures/worker-bundle.js");

/** One registered resource, as the engine would see it. */
export interface RecordedResource {
  readonly type: string;
  readonly name: string;
  /** Logical name of the parent; `"stack"` for top-level resources. */
  readonly parent: string;
  readonly custom: boolean;
  /** Inputs with secrets unwrapped. */
  readonly inputs: Record<string, unknown>;
  /** Top-level input names whose value is (or contains) a secret. */
  readonly secretInputs: readonly string[];
  /** The resource options the program passed. */
  readonly options: pulumi.CustomResourceOptions;
}

export interface Recorder {
  readonly resources: RecordedResource[];
  /** Every resource of one type token, in registration order. */
  ofType(type: string): RecordedResource[];
  /** The resource with this name (throws when absent). */
  named(name: string): RecordedResource;
}

interface Registration {
  type: string;
  name: string;
  custom: boolean;
  inputs: Record<string, unknown>;
  secretInputs: string[];
}

interface Construction {
  type: string;
  name: string;
  resource: pulumi.Resource;
  options: pulumi.CustomResourceOptions;
}

/**
 * Installs mocks whose resources echo their inputs back as state (plus an id), and returns a
 * recorder plus the transformation that captures parents and options.
 */
export async function installMocks(stack = "dev"): Promise<{
  recorder: Recorder;
  transformation: pulumi.ResourceTransformation;
}> {
  const registrations: Registration[] = [];
  const constructions: Construction[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        const secretInputs = Object.keys(args.inputs).filter((key) =>
          containsSecret(args.inputs[key]),
        );
        registrations.push({
          type: args.type,
          name: args.name,
          custom: args.custom ?? false,
          inputs: unwrapSecrets(args.inputs) as Record<string, unknown>,
          secretInputs,
        });
        return { id: `${args.name}-id`, state: { ...args.inputs } };
      },
      call: (args) => {
        throw new Error(`unexpected provider function call ${args.token}`);
      },
    },
    "stepwise",
    stack,
    false,
  );
  const transformation: pulumi.ResourceTransformation = (args) => {
    constructions.push({
      type: args.type,
      name: args.name,
      resource: args.resource,
      options: args.opts,
    });
    return undefined;
  };
  const recorder: Recorder = {
    get resources() {
      return registrations
        .filter((registration) => registration.type !== "pulumi:pulumi:Stack")
        .map((registration) => {
          const construction = constructions.find(
            (entry) => entry.type === registration.type && entry.name === registration.name,
          );
          const parent = constructions.find(
            (entry) => entry.resource === construction?.options.parent,
          );
          return {
            ...registration,
            parent: parent?.name ?? "stack",
            options: construction?.options ?? {},
          };
        });
    },
    ofType(type) {
      return this.resources.filter((resource) => resource.type === type);
    },
    named(name) {
      const found = this.resources.find((resource) => resource.name === name);
      if (!found) throw new Error(`no resource named ${name}`);
      return found;
    },
  };
  return { recorder, transformation };
}

/** Resolves an Output in a mocked run. */
export function promiseOf<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply(resolve));
}

/** Lets every pending registration reach the mock monitor. */
export async function settle(): Promise<void> {
  for (let round = 0; round < 20; round++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * A stack file's `config:` as `pulumi.runtime.setAllConfig` takes it: every value a string,
 * structured ones as JSON, `secure:` values replaced by the test secrets given (and listed as
 * secret keys).
 */
export function stackConfigFromFile(
  file: string,
  testSecrets: Readonly<Record<string, string>>,
): { config: Record<string, string>; secretKeys: string[] } {
  const document = parse(readFileSync(file, "utf8")) as { config: Record<string, unknown> };
  return stackConfig(document.config, testSecrets);
}

/** Same as `stackConfigFromFile`, from a `config:` object. */
export function stackConfig(
  values: Readonly<Record<string, unknown>>,
  testSecrets: Readonly<Record<string, string>> = {},
): { config: Record<string, string>; secretKeys: string[] } {
  const config: Record<string, string> = {};
  const secretKeys: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (key in testSecrets) continue;
    if (isSecure(value) || containsSecure(value)) {
      const secret = testSecrets[key];
      if (secret === undefined) continue;
      config[key] = secret;
      secretKeys.push(key);
    } else {
      config[key] = typeof value === "string" ? value : JSON.stringify(value);
    }
  }
  for (const [key, secret] of Object.entries(testSecrets)) {
    if (!(key in config)) {
      config[key] = secret;
      secretKeys.push(key);
    }
  }
  return { config, secretKeys };
}

/** An object of `secure:` values (`stepwise:byokKeys`), which only test secrets can stand for. */
function containsSecure(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).some(isSecure)
  );
}

function isSecure(value: unknown): boolean {
  return typeof value === "object" && value !== null && "secure" in value;
}

function isSecretValue(value: unknown): value is { value: unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>)[pulumi.runtime.specialSigKey] ===
      pulumi.runtime.specialSecretSig
  );
}

function containsSecret(value: unknown): boolean {
  if (isSecretValue(value)) return true;
  if (Array.isArray(value)) return value.some(containsSecret);
  if (typeof value === "object" && value !== null) {
    return Object.values(value).some(containsSecret);
  }
  return false;
}

/** Replaces the engine's secret wrappers by their values, at any depth. */
export function unwrapSecrets(value: unknown): unknown {
  if (isSecretValue(value)) return unwrapSecrets(value.value);
  if (Array.isArray(value)) return value.map(unwrapSecrets);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [key, unwrapSecrets(member)]),
    );
  }
  return value;
}

/** Keys for `Pulumi.dev.yaml`'s BYOK providers, as `buildStack`'s `secrets.byokKeys` takes them. */
export const devStackByokKeys: Readonly<Record<string, string>> = {
  anthropic: "test-byok-anthropic",
  openai: "test-byok-openai",
  "workers-ai": "test-byok-workers-ai",
};

/**
 * The resources the program declares for the dev stack, as `type name < parent`: what the mocks
 * record for infra/index.ts (test/infra/program.test.ts) and what `stepwise plan` prints
 * (test/cli/plan.test.ts).
 */
export const devStackResourceTree: readonly string[] = [
  // chat-prod's and batch-dev's routes are universal-only: no dynamic route resource.
  "stepwise:index:Gateway chat-prod < stack",
  "cloudflare:index/aiGateway:AiGateway chat-prod-gateway < chat-prod",
  "stepwise:index:Gateway chat-dynamic < stack",
  "cloudflare:index/aiGateway:AiGateway chat-dynamic-gateway < chat-dynamic",
  "pulumi-nodejs:dynamic/stepwise:ByokProviderConfig chat-dynamic-byok-anthropic < chat-dynamic",
  "pulumi-nodejs:dynamic/stepwise:ByokProviderConfig chat-dynamic-byok-openai < chat-dynamic",
  "pulumi-nodejs:dynamic/stepwise:ByokProviderConfig chat-dynamic-byok-workers-ai < chat-dynamic",
  "cloudflare:index/aiGatewayDynamicRouting:AiGatewayDynamicRouting chat-dynamic-route-default < chat-dynamic",
  // The assistant policy has a split, which AiGatewayDynamicRouting cannot hold.
  "pulumi-nodejs:dynamic/stepwise:VersionedDynamicRoute chat-dynamic-route-assistant < chat-dynamic",
  "stepwise:index:Gateway batch-dev < stack",
  "cloudflare:index/aiGateway:AiGateway batch-dev-gateway < batch-dev",
  "stepwise:index:Byok byok < stack",
  "cloudflare:index/secretsStore:SecretsStore byok-store < byok",
  "cloudflare:index/secretsStoreSecret:SecretsStoreSecret byok-chat-dynamic-anthropic < byok",
  "cloudflare:index/secretsStoreSecret:SecretsStoreSecret byok-chat-dynamic-openai < byok",
  "cloudflare:index/secretsStoreSecret:SecretsStoreSecret byok-chat-dynamic-workers-ai < byok",
  "stepwise:index:KeyVault key-vault < stack",
  "cloudflare:index/workersKvNamespace:WorkersKvNamespace key-vault-kv < key-vault",
  "cloudflare:index/workersScript:WorkersScript key-vault-worker < key-vault",
  "cloudflare:index/workersCronTrigger:WorkersCronTrigger key-vault-cron < key-vault",
  "cloudflare:index/workersScriptSubdomain:WorkersScriptSubdomain key-vault-subdomain < key-vault",
];
