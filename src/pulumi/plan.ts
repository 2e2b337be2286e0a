/**
 * @module
 * The offline plan: the program every Stepwise Pulumi project runs (`buildCurrentStack`: read the
 * stack's `stepwise:*` config, preflight, declare every resource) under Pulumi's mocks
 * (`pulumi.runtime.setMocks`), with the stack file's config as the engine would hand it over, and
 * every resource the engine would be asked to create recorded with its inputs. No account, no
 * Pulumi CLI, no state: a team sees what its config deploys before `pulumi preview`.
 *
 * Secrets are never decrypted: a `secure:` value in the stack file counts as set (so the
 * preflight's "needs a secret" checks pass exactly when `pulumi up` would) and is recorded as
 * `[secret]`, as is every input the program marks secret.
 *
 * Pulumi's mock state is global to the process: plan once per process (the CLI does).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { configNamespace, loadConfig, readYamlDocument } from "../config/index.ts";
import { readStackConfig } from "./config.ts";
import { pulumiProjectRoot } from "./paths.ts";
import { type BuildStackOptions, buildStack } from "./stack.ts";

/** What stands for a secret's value in a plan. */
export const secretPlaceholder = "[secret]";

/** One resource the engine would be asked to create. */
export interface PlannedResource {
  /** Type token, e.g. `cloudflare:index/aiGateway:AiGateway`. */
  readonly type: string;
  /** Logical name (the Pulumi URN's last part). */
  readonly name: string;
  /** Logical name of the parent component; undefined at the top level. */
  readonly parent: string | undefined;
  /** A component (`stepwise:index:Gateway`…) rather than a cloud resource. */
  readonly component: boolean;
  /** Inputs as the provider would receive them; secret values are `[secret]`. */
  readonly inputs: Readonly<Record<string, unknown>>;
  /** Top-level inputs whose value is (or holds) a secret. */
  readonly secretInputs: readonly string[];
}

export interface StackPlan {
  readonly stack: string;
  /** The stack file, relative to the project root (`Pulumi.dev.yaml`). */
  readonly source: string;
  /** In registration order: each component before its children. */
  readonly resources: readonly PlannedResource[];
  /** What the program logged as warnings (dynamic-route settings Cloudflare drops…). */
  readonly warnings: readonly string[];
}

export interface PlanOptions {
  /** Stack name: plans `Pulumi.<stack>.yaml`. */
  readonly stack: string;
  /** Where the Pulumi project is (nearest `Pulumi.yaml` at or above). Default: the working directory. */
  readonly cwd?: string;
  /** As for `buildStack`, e.g. `workerBundlePath`. */
  readonly build?: Omit<BuildStackOptions, "secrets" | "source" | "resourceOptions">;
}

/**
 * Plans a stack file as `pulumi up` would run it.
 * @throws {ConfigError} for a missing or bad stack file or a missing secret: the program's message.
 * @throws {InfraError} for a missing Worker bundle or other preflight failure.
 * @example
 * const plan = await planStack({ stack: "dev" });
 * for (const resource of plan.resources) console.log(resource.type, resource.name);
 */
export async function planStack(options: PlanOptions): Promise<StackPlan> {
  const root = pulumiProjectRoot(options.cwd ?? process.cwd());
  const source = `Pulumi.${options.stack}.yaml`;
  const stackConfig = await readStackFileConfig(root, options.stack);
  const { resources, warnings } = await recordResources(
    options.stack,
    stackConfig,
    (resourceOptions) => {
      const { config, secrets } = readStackConfig(root);
      buildStack(config, { ...options.build, secrets, source, resourceOptions });
    },
  );
  return { stack: options.stack, source, resources, warnings };
}

/** The engine's view of a stack file's `config:`: every value a string, secrets listed. */
export interface EngineConfig {
  readonly config: Readonly<Record<string, string>>;
  readonly secretKeys: readonly string[];
}

/**
 * Reads `Pulumi.<stack>.yaml` as the engine hands it to a program: structured values as JSON,
 * scalars as text, each `secure:` value as `[secret]` and its key listed as secret.
 * @throws {ConfigError} when the file is missing or not YAML (the same message as `stepwise validate`).
 */
export async function readStackFileConfig(root: string, stack: string): Promise<EngineConfig> {
  const file = path.join(root, `Pulumi.${stack}.yaml`);
  const text = await readFile(file, "utf8").catch(() => undefined);
  const document = text === undefined ? undefined : readYamlDocument(text);
  const value = document?.ok ? (document.value as { config?: unknown } | null) : undefined;
  if (!value || typeof value.config !== "object" || value.config === null) {
    // Missing, unreadable or not a stack file: validate's own error says which and how to fix it.
    await loadConfig({ stack, cwd: root });
    return { config: {}, secretKeys: [] };
  }
  const config: Record<string, string> = {};
  const secretKeys: string[] = [];
  for (const [key, raw] of Object.entries(value.config as Record<string, unknown>)) {
    const qualified = key.includes(":") ? key : `${configNamespace}:${key}`;
    if (holdsSecure(raw)) secretKeys.push(qualified);
    const plain = withoutSecure(raw);
    config[qualified] = typeof plain === "string" ? plain : JSON.stringify(plain);
  }
  return { config, secretKeys };
}

function isSecure(value: unknown): boolean {
  return typeof value === "object" && value !== null && "secure" in value;
}

function holdsSecure(value: unknown): boolean {
  if (isSecure(value)) return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some(holdsSecure);
}

function withoutSecure(value: unknown): unknown {
  if (isSecure(value)) return secretPlaceholder;
  if (Array.isArray(value)) return value.map(withoutSecure);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [key, withoutSecure(member)]),
    );
  }
  return value;
}

/**
 * Runs `declare` under mocks with `config` as the stack's config and records every resource it
 * registers. `declare` gets the options to pass to its top-level components.
 */
export async function recordResources(
  stack: string,
  engineConfig: EngineConfig,
  declare: (resourceOptions: pulumi.ComponentResourceOptions) => void,
): Promise<{ resources: PlannedResource[]; warnings: string[] }> {
  const registered: { type: string; name: string; custom: boolean; inputs: unknown }[] = [];
  const parents = new Map<pulumi.Resource, string>();
  const parentOf = new Map<string, pulumi.Resource | undefined>();
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.push({
          type: args.type,
          name: args.name,
          custom: args.custom ?? false,
          inputs: args.inputs,
        });
        // An id is known only once Cloudflare creates the resource: the plan names whose it is.
        return { id: `(id of ${args.name})`, state: { ...args.inputs } };
      },
      call: (args) => {
        throw new Error(`the plan cannot call provider function ${args.token}`);
      },
    },
    "stepwise",
    stack,
    true,
  );
  pulumi.runtime.setAllConfig({ ...engineConfig.config }, [...engineConfig.secretKeys]);
  const transformation: pulumi.ResourceTransformation = (args) => {
    parents.set(args.resource, args.name);
    parentOf.set(`${args.type}\u0000${args.name}`, args.opts.parent);
    return undefined;
  };
  const warnings: string[] = [];
  const warn = pulumi.log.warn;
  pulumi.log.warn = (message: string) => {
    warnings.push(message);
    return Promise.resolve();
  };
  try {
    let failure: unknown;
    await pulumi.runtime.runInPulumiStack(async () => {
      try {
        declare({ transformations: [transformation] });
      } catch (error) {
        // Kept rather than thrown: the stack runner reports an error its own way.
        failure = error;
      }
      return undefined;
    });
    if (failure !== undefined) throw failure;
    // Every registration reaches the mock monitor before the recording is read.
    await pulumi.runtime.disconnect();
  } finally {
    pulumi.log.warn = warn;
  }
  const resources = registered
    .filter((entry) => entry.type !== "pulumi:pulumi:Stack")
    .map((entry): PlannedResource => {
      // A dynamic resource's serialized provider is code, not an input anyone reviews.
      const { __provider: _provider, ...inputs } = (entry.inputs ?? {}) as Record<string, unknown>;
      const parent = parentOf.get(`${entry.type}\u0000${entry.name}`);
      return {
        type: entry.type,
        name: entry.name,
        parent: parent === undefined ? undefined : parents.get(parent),
        component: !entry.custom,
        inputs: hideSecrets(inputs) as Record<string, unknown>,
        secretInputs: Object.keys(inputs).filter((key) => containsSecret(inputs[key])),
      };
    });
  return { resources, warnings };
}

function isSecretValue(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>)[pulumi.runtime.specialSigKey] ===
      pulumi.runtime.specialSecretSig
  );
}

function containsSecret(value: unknown): boolean {
  if (isSecretValue(value)) return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some(containsSecret);
}

/**
 * A secret string becomes `[secret]`. A secret object or list (Pulumi marks a whole value secret
 * when any part of it is: the Worker's bindings) is kept, so a reviewer sees its names and
 * types: its secret parts come from the stack file's `secure:` values, already `[secret]`.
 */
function hideSecrets(value: unknown): unknown {
  if (isSecretValue(value)) {
    const inner = (value as { value?: unknown }).value;
    return typeof inner === "object" && inner !== null ? hideSecrets(inner) : secretPlaceholder;
  }
  if (Array.isArray(value)) return value.map(hideSecrets);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [key, hideSecrets(member)]),
    );
  }
  return value;
}
