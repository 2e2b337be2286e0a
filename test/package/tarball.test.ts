/**
 * The package as a user gets it: `npm pack` of the built package, installed into an empty folder,
 * then used the ways the README shows: the client from plain `node`, bundled into a Worker by
 * `wrangler deploy --dry-run` and for the browser by esbuild, type-checked by `tsc`, and the CLI
 * through `npx stepwise`. `npm test` builds dist/ before the tests run (`npm run build`).
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
/** Commands here install, bundle and compile: generous bounds, never a speed assertion. */
const slow = 240_000;

let consumer: string;
let tarballFiles: string[];
let server: Server;
let serverUrl: string;

async function npm(args: string[], cwd: string) {
  return run("npm", args, { cwd, env: { ...process.env, npm_config_update_notifier: "false" } });
}

beforeAll(async () => {
  const work = await mkdtemp(path.join(tmpdir(), "stepwise-pack-"));
  // The tarball of the package as built (npm test runs `npm run build` first).
  const { stdout } = await npm(
    ["pack", "--ignore-scripts", "--json", "--pack-destination", work],
    root,
  );
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  if (!packed) throw new Error("npm pack reported nothing");
  tarballFiles = packed.files.map((file) => file.path);
  consumer = path.join(work, "app");
  await mkdir(consumer);
  await writeFile(
    path.join(consumer, "package.json"),
    JSON.stringify({ name: "app", private: true, type: "module" }),
  );
  // Dependencies come from npm's cache, filled by `npm ci`; the registry only when missing.
  await npm(
    ["install", path.join(work, packed.filename), "--prefer-offline", "--no-audit", "--no-fund"],
    consumer,
  );
  server = createServer((request, response) => {
    // A gateway answering the universal endpoint: step 0 served.
    request.resume().on("end", () => {
      response.writeHead(200, { "content-type": "application/json", "cf-aig-step": "0" });
      response.end(
        JSON.stringify({
          id: "x",
          object: "chat.completion",
          model: "gpt-4o-mini",
          choices: [
            { index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" },
          ],
          usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, slow);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (consumer) await rm(path.dirname(consumer), { recursive: true, force: true });
});

const clientProgram = `
import { createGatewayClient } from "stepwise-gateway/client";
const client = createGatewayClient({
  accountId: "0123456789abcdef0123456789abcdef",
  gatewayId: "chat-prod",
  baseUrl: process.argv[2],
  routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
});
const answer = await client.chat({ route: "default", messages: [{ role: "user", content: "Hi" }] });
console.log(JSON.stringify({ text: answer.text, served: answer.served }));
`;

describe("the npm package", () => {
  it("holds only what users need: built JavaScript, types, the bin and the docs", () => {
    expect(tarballFiles).toContain("package.json");
    expect(tarballFiles).toContain("bin/stepwise.js");
    expect(tarballFiles).toContain("dist/cli/main.js");
    expect(tarballFiles).toContain("dist/client/index.js");
    expect(tarballFiles).toContain("dist/client/index.d.ts");
    // The companion Worker ships pre-built, with the wrangler settings it was built with, so a
    // team's Pulumi program needs no wrangler (docs/pulumi.md).
    expect(tarballFiles).toContain("dist/worker-bundle/index.js");
    expect(tarballFiles).toContain("dist/worker-bundle/wrangler.json");
    const unexpected = tarballFiles.filter(
      (file) =>
        !/^(package\.json|README\.md|CHANGELOG\.md|BENCHMARKS\.md|ARCHITECTURE\.md|CONTRIBUTING\.md|LICENSE|docs\/[\w-]+\.md|bin\/stepwise\.js|dist\/.+\.(js|d\.ts)|dist\/worker-bundle\/wrangler\.json|dist\/stepwise-config\.schema\.json)$/.test(
          file,
        ),
    );
    expect(unexpected).toEqual([]);
    // No TypeScript source can be loaded at run time: the package has none.
    expect(tarballFiles.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toEqual(
      [],
    );
  });

  it(
    "imports stepwise-gateway/client from plain node and makes a call",
    async () => {
      await writeFile(path.join(consumer, "call.mjs"), clientProgram);
      const { stdout } = await run(process.execPath, ["call.mjs", serverUrl], { cwd: consumer });
      const result = JSON.parse(stdout) as { text: string; served: { index: number } };
      expect(result.text).toBe("hi");
      expect(result.served).toMatchObject({ index: 0, provider: "openai", model: "gpt-4o-mini" });
    },
    slow,
  );

  it(
    "bundles into a Worker with wrangler deploy --dry-run",
    async () => {
      const worker = path.join(consumer, "worker");
      await mkdir(worker);
      await writeFile(
        path.join(worker, "index.js"),
        `import { createGatewayClient } from "stepwise-gateway/client";
export default {
  async fetch(request, env) {
    const client = createGatewayClient({ accountId: env.ACCOUNT, gatewayId: "g", routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } });
    return Response.json({ url: client.url("universal") });
  },
};`,
      );
      await writeFile(
        path.join(worker, "wrangler.jsonc"),
        JSON.stringify({ name: "app", main: "index.js", compatibility_date: "2026-04-01" }),
      );
      const { stdout, stderr } = await run(
        bin("wrangler"),
        ["deploy", "--dry-run", "--outdir", "out"],
        { cwd: worker, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" } },
      );
      expect(`${stdout}${stderr}`).toMatch(/--dry-run: exiting now/);
      expect((await readdir(path.join(worker, "out"))).some((file) => file.endsWith(".js"))).toBe(
        true,
      );
    },
    slow,
  );

  it(
    "bundles for the browser with esbuild: no Node built-ins, no packages",
    async () => {
      await writeFile(
        path.join(consumer, "browser.js"),
        `import { createGatewayClient } from "stepwise-gateway/client";\nglobalThis.client = createGatewayClient;`,
      );
      const result = await build({
        absWorkingDir: consumer,
        entryPoints: ["browser.js"],
        bundle: true,
        platform: "browser",
        format: "esm",
        write: false,
        metafile: true,
        logLevel: "silent",
      });
      const inputs = Object.keys(result.metafile.inputs);
      expect(
        inputs.every(
          (input) =>
            input.startsWith("node_modules/stepwise-gateway/dist/") || input === "browser.js",
        ),
      ).toBe(true);
      const external = Object.values(result.metafile.outputs).flatMap((output) =>
        output.imports.filter((imported) => imported.external).map((imported) => imported.path),
      );
      expect(external).toEqual([]);
    },
    slow,
  );

  it(
    "type-checks a consumer with tsc against the published types",
    async () => {
      await writeFile(
        path.join(consumer, "consumer.ts"),
        `import { type ChatResponse, createGatewayClient, GatewayError } from "stepwise-gateway/client";
import { parseConfig } from "stepwise-gateway/config";
const client = createGatewayClient({ accountId: "a", gatewayId: "g", routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } });
export async function ask(): Promise<number | null> {
  try {
    const answer: ChatResponse = await client.chat({ route: "default", messages: [{ role: "user", content: "Hi" }] });
    return answer.served.index;
  } catch (error) {
    if (GatewayError.isInstance(error)) return error.isRetryable ? -1 : null;
    throw error;
  }
}
export const config = parseConfig;
`,
      );
      await writeFile(
        path.join(consumer, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: [],
            lib: ["ES2023", "DOM"],
          },
          files: ["consumer.ts"],
        }),
      );
      const checked = await run(bin("tsc"), ["-p", "tsconfig.json"], { cwd: consumer }).catch(
        (error: { stdout: string }) => error,
      );
      expect(checked.stdout).toBe("");
      // And a wrong use is caught, so the types are really read.
      await writeFile(
        path.join(consumer, "consumer.ts"),
        `import { createGatewayClient } from "stepwise-gateway/client";\ncreateGatewayClient({ gatewayId: 42 });\n`,
      );
      const wrong = await run(bin("tsc"), ["-p", "tsconfig.json"], { cwd: consumer }).catch(
        (error: { stdout: string }) => error,
      );
      expect(wrong.stdout).toMatch(/consumer\.ts.*error TS/);
    },
    slow,
  );

  it(
    "runs npx stepwise --help and validate on a copied stack",
    async () => {
      const help = await run("npx", ["--no-install", "stepwise", "--help"], { cwd: consumer });
      expect(help.stdout).toMatch(/Usage: stepwise/);
      expect(help.stdout).toMatch(/validate/);
      await copyFile(path.join(root, "Pulumi.dev.yaml"), path.join(consumer, "Pulumi.dev.yaml"));
      const validated = await run(
        "npx",
        ["--no-install", "stepwise", "validate", "--stack", "dev"],
        {
          cwd: consumer,
          env: { ...process.env, NO_COLOR: "1" },
        },
      );
      expect(validated.stdout).toMatch(/Pulumi\.dev\.yaml is valid/);
    },
    slow,
  );
});
