/**
 * @module
 * Generates or checks `worker-configuration.d.ts`, the Worker's binding types, from
 * `wrangler.jsonc` and the secret names in `src/worker/secrets.example`.
 *
 * `wrangler types --check` cannot verify types that take secrets from `--env-file`, so the check
 * regenerates them in a scratch copy of the inputs (same relative paths, so the output is byte
 * for byte comparable) and diffs the result against the committed file.
 *
 * Usage: `node --import tsx tools/scripts/worker-types.ts [--check]` (npm run cf-typegen[:check]).
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { readWranglerSettings } from "../../src/pulumi/wrangler-config.ts";

const run = promisify(execFile);
const projectRoot = fileURLToPath(new URL("../..", import.meta.url));
const typesFile = "worker-configuration.d.ts";
const secretsFile = "src/worker/secrets.example";
const entry = "src/worker/index.ts";
const wrangler = path.join(projectRoot, "node_modules", ".bin", "wrangler");
const typesArguments = [
  "types",
  "--strict-vars=false",
  "--include-runtime=false",
  "--env-file",
  secretsFile,
];

async function wranglerTypes(cwd: string): Promise<void> {
  await run(wrangler, typesArguments, {
    cwd,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" },
  });
}

/** Regenerates the committed types in place. */
export async function generateWorkerTypes(): Promise<void> {
  await wranglerTypes(projectRoot);
}

/** Whether the committed types match what the inputs generate now; `expected` is the fresh text. */
export async function checkWorkerTypes(): Promise<{ upToDate: boolean; expected: string }> {
  const scratch = await mkdtemp(path.join(tmpdir(), "stepwise-types-"));
  try {
    await mkdir(path.join(scratch, path.dirname(secretsFile)), { recursive: true });
    await copyFile(path.join(projectRoot, "wrangler.jsonc"), path.join(scratch, "wrangler.jsonc"));
    await copyFile(path.join(projectRoot, secretsFile), path.join(scratch, secretsFile));
    // wrangler reads the config, and the entry only for the Durable Object classes it exports.
    const classes = readWranglerSettings(path.join(projectRoot, "wrangler.jsonc")).durableObjects;
    await writeFile(
      path.join(scratch, entry),
      `export default {};\n${classes.map(({ className }) => `export class ${className} {}\n`).join("")}`,
    );
    await wranglerTypes(scratch);
    const [expected, committed] = await Promise.all([
      readFile(path.join(scratch, typesFile), "utf8"),
      readFile(path.join(projectRoot, typesFile), "utf8").catch(() => ""),
    ]);
    return { upToDate: expected === committed, expected };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  if (process.argv.includes("--check")) {
    const { upToDate } = await checkWorkerTypes();
    if (!upToDate) {
      console.error(
        `${typesFile} is out of date with wrangler.jsonc: run \`npm run cf-typegen\` and commit it.`,
      );
      process.exitCode = 1;
    } else {
      console.log(`${typesFile} is up to date.`);
    }
  } else {
    await generateWorkerTypes();
    console.log(`${typesFile} regenerated from wrangler.jsonc.`);
  }
}
