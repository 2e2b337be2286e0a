/**
 * @module
 * Secrets for a local `wrangler dev`, kept off its command line (where `ps` shows them to every
 * user of the machine): a dotenv file in a temporary folder of its own, readable by this user
 * only, that wrangler loads with `--env-file <path>` (wrangler 4 then skips the project's
 * `.dev.vars` and binds each entry as a secret). Nothing is written inside the repository; the
 * caller removes the folder when wrangler has exited.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** A written vars file; `remove()` deletes it and its folder (safe to call more than once). */
export interface DevVarsFile {
  readonly path: string;
  remove(): void;
}

/**
 * Values wrangler's dotenv reader gives back unchanged when unquoted: no spaces, quotes, `#`
 * (a comment), `$` (dotenv-expand would substitute it) or backslash.
 */
const plainValue = /^[^\s"'`#$\\]+$/;

/** Writes `NAME=value` lines to `<tmp>/stepwise-dev-vars-*\/secrets.env` with mode 0600. */
export function writeDevVarsFile(variables: Readonly<Record<string, string>>): DevVarsFile {
  const lines = Object.entries(variables).map(([name, value]) => {
    if (!plainValue.test(value))
      throw new Error(
        `${name} cannot go in a dotenv file unquoted: use letters, digits and punctuation other than quotes, #, $ and \\`,
      );
    return `${name}=${value}`;
  });
  const directory = mkdtempSync(path.join(tmpdir(), "stepwise-dev-vars-"));
  const file = path.join(directory, "secrets.env");
  writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
  return { path: file, remove: () => rmSync(directory, { recursive: true, force: true }) };
}
