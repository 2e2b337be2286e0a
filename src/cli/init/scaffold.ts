/**
 * @module
 * Writes a new gateway repository (`templates.ts`) into a folder, refusing to overwrite any file
 * that is already there: nothing is written unless every file is new.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { StepwiseError } from "../../errors/index.ts";
import { type InitAnswers, type PackageRef, repositoryFiles } from "./templates.ts";

/** A file `stepwise init` would overwrite. Exit code 1. */
export class InitError extends StepwiseError {
  static override readonly kind: string = "stepwise.InitError";
  constructor(message: string) {
    super({ code: "init_file_exists", message });
    this.name = "InitError";
  }
}

/** This package's name, version and pinned tool versions, from its own package.json. */
export function packageRef(start: string = fileURLToPath(import.meta.url)): PackageRef {
  for (let directory = path.dirname(start); ; directory = path.dirname(directory)) {
    const file = path.join(directory, "package.json");
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, "utf8")) as {
        name: string;
        version: string;
        devDependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
      };
      return {
        name: manifest.name,
        version: `^${manifest.version}`,
        versions: { ...manifest.devDependencies },
      };
    }
    if (path.dirname(directory) === directory) throw new Error(`no package.json above ${start}`);
  }
}

/**
 * Writes the repository into `directory` (created if needed).
 * @returns the paths written, relative to `directory`.
 * @throws {InitError} naming the first file that already exists; nothing is written then.
 */
export async function writeGatewayRepo(
  directory: string,
  answers: InitAnswers,
  pkg: PackageRef = packageRef(),
): Promise<string[]> {
  const files = repositoryFiles(answers, pkg);
  for (const relative of Object.keys(files)) {
    if (existsSync(path.join(directory, relative))) {
      throw new InitError(
        `${path.join(directory, relative)} already exists: stepwise init never overwrites a file. Pick an empty folder (stepwise init <dir>) or move the file away.`,
      );
    }
  }
  for (const [relative, text] of Object.entries(files)) {
    const file = path.join(directory, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text, { flag: "wx" });
  }
  return Object.keys(files);
}
