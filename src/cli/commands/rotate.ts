/**
 * @module
 * `stepwise rotate <provider> --key-file <file|->`: write a new provider key into the companion
 * Worker. The admin token comes from `STEPWISE_ROTATE_TOKEN` and the key from a file or stdin,
 * never from the command line (where shell history and `ps` would keep it). Prints the new
 * version's metadata: its version id and fingerprint, never the key.
 */
import { readFile } from "node:fs/promises";
import { Command, Option } from "commander";
import pc from "picocolors";
import { type RotatedVersion, rotateKey } from "../../worker-admin/index.ts";
import { exitCodesHelp, UsageError } from "../exit-codes.ts";

/** What the command reads from its surroundings; injectable for tests. */
export interface RotateDependencies {
  /** `globalThis.fetch` by default, looked up at call time. */
  readonly fetch?: typeof fetch;
  /** `process.env` by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Reads all of stdin; `process.stdin` by default. */
  readonly readStdin?: () => Promise<string>;
  /** Where results go; `console.log` by default. */
  readonly print?: (line: string) => void;
}

interface RotateOptions {
  keyFile: string;
  poolKey?: string;
  worker?: string;
  label: string;
  expiresAt?: string;
  json?: boolean;
}

export function rotateCommand(dependencies: RotateDependencies = {}): Command {
  return new Command("rotate")
    .description("Rotate a provider key in the companion Worker (key from a file or stdin)")
    .argument("<provider>", "AI Gateway provider slug, e.g. openai, anthropic, workers-ai")
    .requiredOption("-k, --key-file <file>", 'file holding the key, or "-" to read it from stdin')
    .option("-w, --worker <url>", "the Worker's URL (default: $STEPWISE_WORKER_URL)")
    .option(
      "-p, --pool-key <name>",
      "the key of the provider's pool to rotate; a new name adds a key to the pool (default: default)",
    )
    .option("-l, --label <text>", "what rotated the key, stored with it", "stepwise-cli")
    .addOption(new Option("--expires-at <iso-date>", "when the provider stops accepting the key"))
    .option("--json", "print the new version's metadata as JSON")
    .addHelpText(
      "after",
      [
        "",
        "The admin token is read from STEPWISE_ROTATE_TOKEN (the Worker's ROTATE_TOKEN secret).",
        "The key is never taken from the command line.",
        "",
        "Examples:",
        "  stepwise rotate openai --key-file ./openai.key --worker https://stepwise-keys.example.workers.dev",
        "  op read op://vault/openai/key | stepwise rotate openai --key-file - --label ci:deploy-42",
        "  stepwise rotate openai --pool-key secondary --key-file ./openai-2.key   # a second key",
        "",
        "Locally, `npm run worker:dev` starts the Worker at http://127.0.0.1:8787 with the admin token",
        "stepwise-local-admin-token (docs/worker.md).",
        exitCodesHelp("the Worker refused the rotation or could not be reached"),
      ].join("\n"),
    )
    .action(async (provider: string, options: RotateOptions) => {
      const env = dependencies.env ?? process.env;
      const print = dependencies.print ?? ((line: string) => console.log(line));
      const token = env.STEPWISE_ROTATE_TOKEN?.trim();
      if (!token) {
        throw new UsageError(
          "STEPWISE_ROTATE_TOKEN is not set: export the Worker's admin token (its ROTATE_TOKEN secret) first.",
        );
      }
      const workerUrl = options.worker ?? env.STEPWISE_WORKER_URL;
      if (!workerUrl) {
        throw new UsageError("No Worker URL: pass --worker https://… or set STEPWISE_WORKER_URL.");
      }
      if (!URL.canParse(workerUrl)) {
        throw new UsageError(
          `The Worker URL "${workerUrl}" is not a URL: pass --worker https://… (or http://127.0.0.1:8787 for npm run worker:dev).`,
        );
      }
      const key = await readKey(options.keyFile, dependencies.readStdin ?? readProcessStdin);
      const metadata = await rotateKey({
        workerUrl,
        provider,
        ...(options.poolKey === undefined ? {} : { name: options.poolKey }),
        key,
        token,
        label: options.label,
        ...(options.expiresAt === undefined ? {} : { expiresAt: options.expiresAt }),
        fetch: dependencies.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      });
      print(options.json ? JSON.stringify(metadata, null, 2) : describe(metadata));
    });
}

/** Reads the key from a file or stdin, dropping one trailing newline; checks it looks like a key. */
export async function readKey(keyFile: string, readStdin: () => Promise<string>): Promise<string> {
  let text: string;
  try {
    text = keyFile === "-" ? await readStdin() : await readFile(keyFile, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new UsageError(`Cannot read the key file ${keyFile} (${code}).`, error);
  }
  const key = text.replace(/\r?\n$/, "");
  const where = keyFile === "-" ? "stdin" : keyFile;
  if (key === "") throw new UsageError(`The key from ${where} is empty.`);
  if (/\s/.test(key)) {
    throw new UsageError(
      `The key from ${where} contains whitespace (more than one line, or spaces); a provider key never does.`,
    );
  }
  return key;
}

function describe(metadata: RotatedVersion): string {
  const expires = metadata.expiresAt === null ? "does not expire" : `expires ${metadata.expiresAt}`;
  const which =
    metadata.name === undefined || metadata.name === "default"
      ? metadata.provider
      : `${metadata.provider} key "${metadata.name}"`;
  const { propagation } = metadata;
  const kv =
    propagation?.kv === "written"
      ? `written; every location by ${propagation.visibleEverywhereBy}`
      : "pending (the Worker retries it)";
  return [
    `${pc.green("✔")} ${which} rotated to version ${pc.bold(metadata.version)}`,
    `  fingerprint ${metadata.fingerprint} · label ${metadata.label} · ${expires}`,
    `  proxied calls (Workers KV): ${kv}`,
    ...(propagation?.byok ?? []).map(
      (write) =>
        `  dynamic routes of ${write.gateway} (BYOK secret ${write.secret}): ${write.state === "written" ? "written" : "pending (the Worker retries it)"}`,
    ),
    pc.dim(
      "  Readers at other locations switch within about 60 s; the previous key stays valid meanwhile.",
    ),
  ].join("\n");
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}
