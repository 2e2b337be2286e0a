/**
 * The `/pulumi` entry as a team's program imports it: the built module (`dist/pulumi/index.js`,
 * what `stepwise-gateway/pulumi` resolves to) in a copy of the package as npm installs it (its
 * package.json and dist/, no sources, no `wrangler.jsonc`), under Pulumi's mocks. `buildStack(config)` deploys
 * the companion Worker from the bundle the build ships (`dist/worker-bundle/`, no wrangler run
 * and no `wrangler.jsonc` needed), the components are usable one by one, and the preflight
 * refuses a config the CLI refuses. Needs `npm run build` (the full build writes the bundle).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../src/config/index.ts";
import { projectRoot } from "../docs/documented.ts";
import {
  devStackByokKeys,
  installMocks,
  promiseOf,
  type Recorder,
  repoRoot,
  stackConfigFromFile,
} from "./helpers.ts";

/** docs/pulumi.md's program examples: every ts block that imports the entry. */
function documentedPrograms(): string[] {
  const text = readFileSync(path.join(projectRoot, "docs/pulumi.md"), "utf8");
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((match) => match[1]!)
    .filter((body) => body.includes('from "stepwise-gateway/pulumi"'));
}

type Entry = typeof import("../../src/pulumi/index.ts");

let installed: string;
let shippedBundle: string;
let components: Entry;
let recorder: Recorder;
let transformation: pulumi.ResourceTransformation;

beforeAll(async () => {
  if (!existsSync(path.join(repoRoot, "dist/worker-bundle/index.js")))
    throw new Error("run `npm run build` first: this test imports the built /pulumi entry");
  installed = await mkdtemp(path.join(tmpdir(), "stepwise-installed-"));
  await cp(path.join(repoRoot, "package.json"), path.join(installed, "package.json"));
  await cp(path.join(repoRoot, "dist"), path.join(installed, "dist"), { recursive: true });
  // Its dependencies (and the peers a team installs) resolve as from the team's node_modules.
  await symlink(path.join(repoRoot, "node_modules"), path.join(installed, "node_modules"));
  shippedBundle = path.join(installed, "dist/worker-bundle/index.js");
  ({ recorder, transformation } = await installMocks("shipped"));
  components = (await import(
    pathToFileURL(path.join(installed, "dist/pulumi/index.js")).href
  )) as Entry;
});

afterAll(async () => {
  if (installed) await rm(installed, { recursive: true, force: true });
});

describe("the built /pulumi entry", () => {
  it("exports Gateway, KeyVault, Byok and buildStack", () => {
    for (const name of ["Gateway", "KeyVault", "Byok", "buildStack", "buildCurrentStack"]) {
      expect(typeof components[name as keyof Entry], name).toBe("function");
    }
  });

  it("deploys the Worker from the bundle and wrangler settings the package ships", async () => {
    const { config } = await loadConfig({ stack: "dev", cwd: repoRoot });
    const previous = process.env.STEPWISE_WORKER_BUNDLE;
    delete process.env.STEPWISE_WORKER_BUNDLE;
    try {
      const stack = components.buildStack(config, {
        secrets: { rotateToken: pulumi.secret("rotate"), byokKeys: devStackByokKeys },
        resourceOptions: { transformations: [transformation] },
      });
      await promiseOf(stack.outputs.kvNamespaceId as pulumi.Output<string>);
      await pulumi.runtime.disconnect();
    } finally {
      if (previous !== undefined) process.env.STEPWISE_WORKER_BUNDLE = previous;
    }
    const shipped = JSON.parse(
      readFileSync(path.join(installed, "dist/worker-bundle/wrangler.json"), "utf8"),
    ) as { compatibility_date: string; compatibility_flags?: string[] };
    expect(recorder.named("key-vault-worker").inputs).toMatchObject({
      contentFile: shippedBundle,
      mainModule: "index.js",
      contentSha256: createHash("sha256").update(readFileSync(shippedBundle)).digest("hex"),
      compatibilityDate: shipped.compatibility_date,
    });
    expect(recorder.named("chat-prod-gateway").inputs).toMatchObject({ cacheTtl: 300 });
  });

  it("runs the same preflight: a dynamic route on an open gateway is refused, naming the fix", () => {
    const config = parseConfig({
      accountId: "0123456789abcdef0123456789abcdef",
      gateways: [
        {
          id: "open",
          authentication: false,
          routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
        },
      ],
      keys: { providers: ["openai"] },
    });
    expect(() => components.buildStack(config, { secrets: { rotateToken: "x" } })).toThrow(
      /gateways\[0\]\.routes\.default.*authentication/s,
    );
  });

  it("runs docs/pulumi.md's programs as written, importing the package by name", async () => {
    const programs = documentedPrograms();
    expect(programs).toHaveLength(2);
    const stackConfig = stackConfigFromFile(path.join(repoRoot, "Pulumi.dev.yaml"), {
      "stepwise:rotateToken": "test-rotate",
      "stepwise:byokKeys": JSON.stringify(devStackByokKeys),
    });
    pulumi.runtime.setAllConfig(stackConfig.config, stackConfig.secretKeys);
    const exported: Record<string, unknown>[] = [];
    for (const [index, program] of programs.entries()) {
      // Inside the installed package, its own name resolves to it (a package self-reference).
      const file = path.join(installed, `program-${index}.mjs`);
      await writeFile(file, program);
      exported.push((await import(pathToFileURL(file).href)) as Record<string, unknown>);
    }
    await pulumi.runtime.disconnect();
    expect(Object.keys(exported[0]!)).toEqual(expect.arrayContaining(["gateways", "workerUrl"]));
    expect(recorder.ofType("stepwise:index:Gateway").map((resource) => resource.name)).toEqual(
      expect.arrayContaining(["chat-prod", "support-bot"]),
    );
    expect(recorder.named("support-bot-gateway").inputs).toMatchObject({
      aiGatewayId: "support-bot",
      authentication: true,
      cacheTtl: 600,
    });
    await expect(promiseOf(exported[1]!.supportBotUrl as pulumi.Output<string>)).resolves.toBe(
      "https://gateway.ai.cloudflare.com/v1/0123456789abcdef0123456789abcdef/support-bot",
    );
  });
});
