/**
 * @module
 * The built `stepwise` command (`bin/stepwise.js`, after `npm run build:js`), run in this
 * repository as a user runs it, without colour: its exit code and both outputs, whatever the code.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { projectRoot } from "./gateway-repo.ts";

/** What one run of the command printed, and how it exited. */
export interface StepwiseRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `stepwise <args>` in the repository's root. */
export async function stepwise(...args: string[]): Promise<StepwiseRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)("node", ["bin/stepwise.js", ...args], {
      cwd: projectRoot,
      env: { ...process.env, NO_COLOR: "1" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as StepwiseRun;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
