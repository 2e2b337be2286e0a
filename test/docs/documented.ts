/**
 * The commands README.md, ARCHITECTURE.md, CONTRIBUTING.md and docs/*.md show, and how the docs
 * tests run them as written: every line of an `sh`/`bash` block (continuations joined, comments
 * dropped, `a && b` as two commands), every `$ ` line of a `console` block, and every inline code
 * span that starts with a command (`npm run worker:dev`, `npx stepwise report events.jsonl`).
 * `documented(text)` is how a test names the command it runs; `test/docs/coverage.test.ts` finds
 * those names in the test files and fails for any command no test runs (or, for the few that need
 * an account, checks statically).
 */
import { readdirSync, readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { type StartedProcess, startProcess } from "../helpers/processes.ts";

export const projectRoot = path.resolve(import.meta.dirname, "../..");

/** README.md, the map and the guide, and every docs/*.md, relative to the project root. */
export const documentationFiles: readonly string[] = [
  "README.md",
  "ARCHITECTURE.md",
  "CONTRIBUTING.md",
  ...readdirSync(path.join(projectRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

/** One command as the docs show it. */
export interface DocumentedCommand {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

const shellLanguages = new Set(["sh", "bash", "shell"]);
const commandStart = /^(npm (run |start|test|ci)|npx |node |stepwise [a-z]|pulumi |wrangler )/;

/** Drops a trailing `  # comment` (outside quotes). */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let index = 0; index < line.length; index++) {
    const character = line[index];
    if (quote !== undefined) {
      if (character === quote) quote = undefined;
    } else if (character === '"' || character === "'") quote = character;
    else if (character === "#" && (index === 0 || /\s/.test(line[index - 1]!)))
      return line.slice(0, index).trimEnd();
  }
  return line.trimEnd();
}

/** The commands in one markdown text. */
export function commandsIn(markdown: string, file: string): DocumentedCommand[] {
  const found: DocumentedCommand[] = [];
  const lines = markdown.split("\n");
  let fence: string | undefined;
  let pending: { text: string; line: number } | undefined;
  const add = (text: string, line: number) => {
    for (const part of text.split(" && ")) {
      const command = part.trim();
      if (command !== "") found.push({ file, line, text: command });
    }
  };
  lines.forEach((raw, index) => {
    const line = index + 1;
    const fenceMatch = /^```(\S*)/.exec(raw);
    if (fenceMatch) {
      fence = fence === undefined ? fenceMatch[1] || "text" : undefined;
      return;
    }
    if (fence !== undefined && shellLanguages.has(fence)) {
      const text = withoutComment(raw.trim());
      if (text === "" && pending === undefined) return;
      const joined = pending === undefined ? text : `${pending.text} ${text}`;
      const start = pending?.line ?? line;
      if (joined.endsWith("\\")) {
        pending = { text: joined.slice(0, -1).trimEnd(), line: start };
        return;
      }
      pending = undefined;
      add(joined, start);
    } else if (fence === "console") {
      if (raw.startsWith("$ ")) add(raw.slice(2).trim(), line);
    } else if (fence === undefined) {
      for (const match of raw.matchAll(/`([^`]+)`/g)) {
        if (commandStart.test(match[1]!)) add(match[1]!, line);
      }
    }
  });
  return found;
}

/** Every command of the documentation files, in file order. */
export function allDocumentedCommands(): DocumentedCommand[] {
  return documentationFiles.flatMap((file) =>
    commandsIn(readFileSync(path.join(projectRoot, file), "utf8"), file),
  );
}

/** The lines of the fenced block that starts with `$ <command>` (console) in `file`. */
export function consoleBlock(file: string, command: string): string[] {
  const lines = readFileSync(path.join(projectRoot, file), "utf8").split("\n");
  const start = lines.indexOf(`$ ${command}`);
  if (start === -1) throw new Error(`${file} has no console block for "${command}"`);
  const end = lines.indexOf("```", start);
  return lines.slice(start + 1, end);
}

/** The body of the fenced block of `language` that contains `needle`. */
export function fencedBlock(file: string, language: string, needle: string): string {
  const text = readFileSync(path.join(projectRoot, file), "utf8");
  for (const match of text.matchAll(/```(\S*)\n([\s\S]*?)```/g)) {
    if (match[1] === language && match[2]!.includes(needle)) return match[2]!;
  }
  throw new Error(`${file} has no ${language} block containing "${needle}"`);
}

/**
 * Names a command the docs show; throws when they do not show it (a test that drifted from the
 * docs fails here). `test/docs/coverage.test.ts` reads these calls.
 */
export function documented(text: string): string {
  if (!allDocumentedCommands().some((command) => command.text === text))
    throw new Error(
      `README.md, ARCHITECTURE.md, CONTRIBUTING.md and docs/*.md do not show the command: ${text}`,
    );
  return text;
}

const manifest = JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8")) as {
  name: string;
  scripts: Record<string, string>;
};
const packageScripts = manifest.scripts;
const packageName = manifest.name;

/** The CLI entry a package script runs after `npm run build:js` (the tests run on a built tree). */
const buildThen = "npm run build:js --silent && node bin/stepwise.js";

/**
 * The shell text that runs a documented command: the command as written (`npx stepwise …` finds
 * the package in the sandbox's `node_modules/`, or, in the project, the package's own bin), but
 * for `npm start` and the scripts that build and then run the CLI, which run the CLI they end in
 * (the suite runs after `npm test` built it, and rebuilding while other tests run the CLI would
 * race them).
 */
export function shellFor(text: string): string {
  const script = /^npm (?:run (\S+)|(start))(.*)$/.exec(text);
  if (!script) return text;
  const name = script[1] ?? script[2]!;
  const body = packageScripts[name];
  if (body === undefined) throw new Error(`package.json has no script "${name}"`);
  if (!body.startsWith(`${buildThen} `)) return text;
  const extra = script[3]!.replace(/^ --(?= |$)/, "");
  return `npx stepwise ${body.slice(buildThen.length + 1)}${extra}`;
}

/**
 * A directory like a user's project that installed the package: `node_modules/stepwise-gateway`
 * is this checkout (linked) and `node_modules/.bin/stepwise` its bin, so `npx stepwise` runs it
 * as it runs in a project that ran `npm install stepwise-gateway`; and Pulumi.dev.yaml.
 */
export interface Sandbox {
  readonly directory: string;
  readonly env: NodeJS.ProcessEnv;
  remove(): Promise<void>;
}

/**
 * The environment of a user's shell: none of the `npm_*` variables of the `npm test` that runs
 * the suite (npm reads them as its config, and they point at this checkout), and no colour.
 */
export function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^npm_/i.test(name)) env[name] = value;
  return { ...env, NO_COLOR: "1", npm_config_update_notifier: "false" };
}

/** Makes a sandbox; `files` are copied from the project (relative paths kept). */
export async function makeSandbox(
  files: readonly string[] = ["Pulumi.dev.yaml"],
): Promise<Sandbox> {
  const directory = await mkdtemp(path.join(tmpdir(), "stepwise-docs-"));
  const modules = path.join(directory, "node_modules");
  await mkdir(path.join(modules, ".bin"), { recursive: true });
  await symlink(projectRoot, path.join(modules, packageName));
  await symlink(
    path.join("..", packageName, "bin", "stepwise.js"),
    path.join(modules, ".bin", "stepwise"),
  );
  for (const file of files) {
    await mkdir(path.dirname(path.join(directory, file)), { recursive: true });
    await cp(path.join(projectRoot, file), path.join(directory, file));
  }
  return {
    directory,
    // Offline: a command that would reach for a registry (npx of a package no sandbox holds, the
    // unrelated `stepwise` on npm's registry) fails at once instead of downloading it.
    env: { ...userEnvironment(), npm_config_offline: "true" },
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}

export interface RunOptions {
  /** Where to run; the sandbox's directory unless `inProject`. */
  readonly sandbox: Sandbox;
  /** Run in the project directory instead (commands that act on the repository). */
  readonly inProject?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  readonly stdin?: string;
  /**
   * Arguments the test adds, said out loud: e.g. `--port 0` so nothing listens on a fixed port.
   * A string goes after the last command; a list, one entry per command.
   */
  readonly append?: string | readonly (string | undefined)[];
}

/** Starts documented commands (one shell, in order, stopping at the first failure). */
export function startDocumented(
  commands: string | readonly string[],
  options: RunOptions,
): StartedProcess {
  const list = typeof commands === "string" ? [commands] : commands;
  const appends =
    typeof options.append === "string"
      ? list.map((_, index) => (index === list.length - 1 ? options.append : undefined))
      : (options.append ?? []);
  const lines = list.map((text, index) => {
    const shell = shellFor(documented(text));
    const extra = appends[index];
    return extra === undefined ? shell : `${shell} ${extra}`;
  });
  return startProcess("bash", ["-c", `set -eo pipefail\n${lines.join("\n")}`], {
    cwd: options.inProject ? projectRoot : options.sandbox.directory,
    env: { ...options.sandbox.env, ...options.env },
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
  });
}

/**
 * Ctrl-C, as a terminal sends it: SIGINT to the whole foreground process group (the shell, `npx`
 * and the CLI it runs). Resolves once the command has stopped, true when it stopped cleanly: exit
 * code 0, or, through `npx` (which ends itself with the signal its child got), the CLI printed
 * `stopped` and npx ended by the SIGINT.
 */
export async function interrupt(started: StartedProcess): Promise<boolean> {
  const group = started.child.pid;
  if (group !== undefined) process.kill(-group, "SIGINT");
  const code = await started.exited;
  return code === 0 || (code === -1 && /^stopped$/m.test(started.output()));
}

/** Runs documented commands to the end: exit code and output. */
export async function runDocumented(
  commands: string | readonly string[],
  options: RunOptions,
): Promise<{ code: number; stdout: string; stderr: string; output: string }> {
  const started = startDocumented(commands, options);
  try {
    const code = await started.exited;
    return { code, stdout: started.stdout(), stderr: started.stderr(), output: started.output() };
  } finally {
    await started.stop();
  }
}

/**
 * A console block's line as a pattern: numbers, ports, versions, ids and times may differ from
 * run to run (a token that starts with a digit matches any such token), and so may the width of
 * the spaces between columns; the words may not.
 */
export function linePattern(line: string): RegExp {
  const parts = line.trim().split(/(\d[\w.,:-]*)/);
  const source = parts
    .map((part, index) =>
      index % 2 === 1
        ? "\\d[\\w.,:-]*"
        : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, "\\s+"),
    )
    .join("");
  return new RegExp(source);
}

/**
 * Checks that a command printed a console block the docs show: every line of the block that is
 * not blank or "…" appears in `output`, in order, numbers free to differ ({@link linePattern}).
 */
export function expectBlockPrinted(block: readonly string[], output: string): void {
  const lines = output.split("\n");
  let from = 0;
  for (const line of block) {
    if (line.trim() === "" || line.trim() === "…") continue;
    const pattern = linePattern(line);
    const found = lines.findIndex((candidate, index) => index >= from && pattern.test(candidate));
    expect(found, `not printed (in order): ${line}\n--- output:\n${output}`).not.toBe(-1);
    from = found + 1;
  }
}
