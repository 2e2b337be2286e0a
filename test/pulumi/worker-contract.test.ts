/**
 * The Worker Pulumi deploys has exactly the bindings its code reads: the names and kinds in
 * `WorkerEnv` (src/worker/bindings.ts), in wrangler's generated `Env`
 * (worker-configuration.d.ts), in `wrangler.jsonc` and in the local Worker (Miniflare) all match
 * the Pulumi bindings; the Durable Object migrations are wrangler's; and every binding is one
 * `@pulumi/cloudflare` declares (its `type` among the documented values, its fields members of
 * `WorkersScriptBinding`).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.ts";
import { localDurableObjects } from "../../src/demo/local-worker.ts";
import { buildStack } from "../../src/pulumi/stack.ts";
import { workerBindingNames, workerMigrations } from "../../src/pulumi/worker-bindings.ts";
import { readWranglerSettings } from "../../src/pulumi/wrangler-config.ts";
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

type Kind = "kv" | "analytics" | "durable-object" | "text";

/** The binding kind a declared type asks for. */
function kindOf(typeText: string): Kind {
  if (/KVNamespace|KvNamespaceLike/.test(typeText)) return "kv";
  if (/AnalyticsEngineDataset|AnalyticsDatasetLike/.test(typeText)) return "analytics";
  if (/DurableObjectNamespace/.test(typeText)) return "durable-object";
  return "text";
}

const kindOfBinding: Record<string, Kind> = {
  kv_namespace: "kv",
  analytics_engine: "analytics",
  durable_object_namespace: "durable-object",
  plain_text: "text",
  secret_text: "text",
};

/** `@pulumi/cloudflare`'s declaration of an interface: member names and whether each is optional. */
function pulumiInterface(name: string): {
  members: Map<string, { optional: boolean; doc: string }>;
} {
  const file = path.join(repoRoot, "node_modules/@pulumi/cloudflare/types/input.d.ts");
  const source = ts.createSourceFile(
    file,
    readFileSync(file, "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const members = new Map<string, { optional: boolean; doc: string }>();
  const visit = (node: ts.Node): void => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === name) {
      for (const member of node.members) {
        if (!ts.isPropertySignature(member)) continue;
        const doc = ts
          .getJSDocCommentsAndTags(member)
          .map((comment) => comment.getText(source))
          .join("\n");
        members.set(member.name.getText(source), {
          optional: member.questionToken !== undefined,
          doc,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { members };
}

let recorder: Recorder;
let bindings: { name: string; type: string; dataset?: string; className?: string }[];
let migrations: unknown;

beforeAll(async () => {
  ({ recorder } = await installMocks("dev"));
  const { config } = await loadConfig({ stack: "dev", cwd: repoRoot });
  const stack = buildStack(config, {
    secrets: {
      rotateToken: pulumi.secret("rotate"),
      gatewayToken: pulumi.secret("gateway"),
      secretsStoreToken: pulumi.secret("secrets-store"),
      analyticsApiToken: pulumi.secret("analytics-read"),
      byokKeys: devStackByokKeys,
    },
    workerBundlePath: fixtureBundlePath,
  });
  await promiseOf(stack.outputs.kvNamespaceId as pulumi.Output<string>);
  await settle();
  bindings = recorder.named("key-vault-worker").inputs.bindings as typeof bindings;
  migrations = recorder.named("key-vault-worker").inputs.migrations;
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
    // The daily summary queries the dataset EVENTS writes to.
    const events = wrangler.analytics_engine_datasets?.find((entry) => entry.binding === "EVENTS");
    expect(wrangler.vars?.EVENTS_DATASET).toBe(events?.dataset);
    const secrets = readFileSync(path.join(repoRoot, "src/worker/secrets.example"), "utf8")
      .split("\n")
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => line.slice(0, line.indexOf("=")));
    expect(secrets.length).toBeGreaterThan(0);
    for (const name of secrets) expect(typeOf(name)).toBe("secret_text");
  });

  it("match wrangler.jsonc's Durable Objects, and the migrations create every class they bind", () => {
    const wrangler = readWranglerSettings(path.join(repoRoot, "wrangler.jsonc"));
    expect(wrangler.durableObjects.length).toBeGreaterThan(0);
    for (const { name, className } of wrangler.durableObjects) {
      expect(bindings.find((binding) => binding.name === name)).toEqual({
        name,
        type: "durable_object_namespace",
        className,
      });
    }
    expect(migrations).toEqual(workerMigrations(wrangler.migrations));
    const created = wrangler.migrations.flatMap((migration) => migration.newSqliteClasses);
    expect([...created].sort()).toEqual(
      wrangler.durableObjects.map((binding) => binding.className).sort(),
    );
    // The local Worker (demo, benchmarks, end-to-end tests) binds the same classes.
    expect(
      Object.entries(localDurableObjects)
        .map(([name, { className }]) => ({ name, className }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([...wrangler.durableObjects].sort((a, b) => a.name.localeCompare(b.name)));
  });

  it("are what @pulumi/cloudflare declares: a documented type, fields of WorkersScriptBinding", () => {
    const declared = pulumiInterface("WorkersScriptBinding").members;
    const documented = declared.get("type")?.doc.match(/Available values: (.*)\./)?.[1];
    // The generated docs escape "_" as "*": "durable*object*namespace".
    const types = new Set(
      [...(documented ?? "").matchAll(/"([^"]+)"/g)].map((match) => match[1]!.replaceAll("*", "_")),
    );
    expect(types.size).toBeGreaterThan(20);
    for (const binding of bindings) {
      expect(types.has(binding.type), `${binding.name}: type ${binding.type}`).toBe(true);
      for (const field of Object.keys(binding)) {
        expect(declared.has(field), `${binding.name}: field ${field}`).toBe(true);
      }
      for (const [field, { optional }] of declared) {
        if (!optional) expect(binding, `${binding.name} lacks ${field}`).toHaveProperty(field);
      }
    }
    const migrationFields = pulumiInterface("WorkersScriptMigrations").members;
    const stepFields = pulumiInterface("WorkersScriptMigrationsStep").members;
    const given = migrations as { steps?: Record<string, unknown>[] } & Record<string, unknown>;
    for (const field of Object.keys(given)) expect(migrationFields.has(field), field).toBe(true);
    for (const step of given.steps ?? []) {
      for (const field of Object.keys(step)) expect(stepFields.has(field), field).toBe(true);
    }
  });

  it("use the names infra exports for them", () => {
    expect(Object.values(workerBindingNames).sort()).toEqual(
      bindings.map((binding) => binding.name).sort(),
    );
  });
});
