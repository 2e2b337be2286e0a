/**
 * The Worker Pulumi deploys has exactly the bindings its code reads: the names and kinds in
 * `WorkerEnv` (src/worker/bindings.ts), in wrangler's generated `Env`
 * (worker-configuration.d.ts) and in `wrangler.jsonc` all match the Pulumi bindings.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { buildStack } from "../../infra/stack.ts";
import { workerBindingNames } from "../../infra/worker-bindings.ts";
import { readWranglerSettings } from "../../infra/wrangler-config.ts";
import { loadConfig } from "../../src/config/index.ts";
import {
  devStackByokKeys,
  fixtureBundlePath,
  installMocks,
  promiseOf,
  type Recorder,
  repoRoot,
  settle,
} from "./helpers.ts";

/** Member name → declared type text of `interface <name>` in a TypeScript file. */
function interfaceMembers(file: string, name: string): Record<string, string> {
  const source = ts.createSourceFile(
    file,
    readFileSync(path.join(repoRoot, file), "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const members: Record<string, string> = {};
  const visit = (node: ts.Node): void => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === name) {
      for (const member of node.members) {
        if (ts.isPropertySignature(member) && member.type) {
          members[member.name.getText(source)] = member.type.getText(source);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return members;
}

/** The binding kind a declared type asks for. */
function kindOf(typeText: string): "kv" | "analytics" | "text" {
  if (/KVNamespace|KvNamespaceLike/.test(typeText)) return "kv";
  if (/AnalyticsEngineDataset|AnalyticsDatasetLike/.test(typeText)) return "analytics";
  return "text";
}

const kindOfBinding: Record<string, "kv" | "analytics" | "text"> = {
  kv_namespace: "kv",
  analytics_engine: "analytics",
  plain_text: "text",
  secret_text: "text",
};

let recorder: Recorder;
let bindings: { name: string; type: string; dataset?: string }[];

beforeAll(async () => {
  ({ recorder } = await installMocks("dev"));
  const { config } = await loadConfig({ stack: "dev", cwd: repoRoot });
  const stack = buildStack(config, {
    secrets: {
      rotateToken: pulumi.secret("rotate"),
      gatewayToken: pulumi.secret("gateway"),
      byokKeys: devStackByokKeys,
    },
    workerBundlePath: fixtureBundlePath,
  });
  await promiseOf(stack.outputs.kvNamespaceId as pulumi.Output<string>);
  await settle();
  bindings = recorder.named("key-vault-worker").inputs.bindings as typeof bindings;
});

describe("the Worker's bindings", () => {
  it("are the members of WorkerEnv, each of the kind the code reads", () => {
    const workerEnv = interfaceMembers("src/worker/bindings.ts", "WorkerEnv");
    expect(Object.keys(workerEnv).sort()).toEqual(bindings.map((binding) => binding.name).sort());
    for (const binding of bindings) {
      expect(kindOfBinding[binding.type], binding.name).toBe(
        kindOf(workerEnv[binding.name] as string),
      );
    }
  });

  it("are the members of wrangler's generated Env", () => {
    const env = interfaceMembers("worker-configuration.d.ts", "Env");
    expect(Object.keys(env).sort()).toEqual(bindings.map((binding) => binding.name).sort());
    for (const binding of bindings) {
      expect(kindOfBinding[binding.type], binding.name).toBe(kindOf(env[binding.name] as string));
    }
  });

  it("match wrangler.jsonc: KV namespaces, the dataset, vars as plain text, secrets as secrets", () => {
    const wrangler = readWranglerSettings(path.join(repoRoot, "wrangler.jsonc")).raw as {
      kv_namespaces?: { binding: string }[];
      analytics_engine_datasets?: { binding: string; dataset: string }[];
      vars?: Record<string, unknown>;
    };
    const typeOf = (name: string) => bindings.find((binding) => binding.name === name)?.type;
    for (const { binding } of wrangler.kv_namespaces ?? [])
      expect(typeOf(binding)).toBe("kv_namespace");
    for (const { binding, dataset } of wrangler.analytics_engine_datasets ?? []) {
      expect(bindings.find((entry) => entry.name === binding)).toMatchObject({
        type: "analytics_engine",
        dataset,
      });
    }
    for (const name of Object.keys(wrangler.vars ?? {})) expect(typeOf(name)).toBe("plain_text");
    const secrets = readFileSync(path.join(repoRoot, "src/worker/secrets.example"), "utf8")
      .split("\n")
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => line.slice(0, line.indexOf("=")));
    expect(secrets.length).toBeGreaterThan(0);
    for (const name of secrets) expect(typeOf(name)).toBe("secret_text");
  });

  it("use the names infra exports for them", () => {
    expect(Object.values(workerBindingNames).sort()).toEqual(
      bindings.map((binding) => binding.name).sort(),
    );
  });
});
