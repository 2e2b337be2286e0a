/**
 * Cloudflare's own AI Gateway examples, sent to the emulator as their pages write them: only the
 * host (`https://gateway.ai.cloudflare.com`, `https://api.cloudflare.com`), the account and the
 * gateway change, plus the placeholders a reader fills in (`{cf_api_token}`, a route's name). curl
 * examples run through the real `curl` binary under `bash`, so their quoting, line continuations
 * and mistakes are the page's own.
 */
import { execFile } from "node:child_process";
import type { Emulator } from "../../../src/emulator/index.ts";

/** What a reader puts in place of a page's placeholders (`{gateway_id}` → "open"). */
export type Fills = Readonly<Record<string, string>>;

/**
 * The example with the emulator's host and the reader's fills. `{name}` placeholders are
 * replaced from `fills` by name; `$NAME` shell variables stay for `runCurl`'s environment.
 * @throws Error when the example keeps a `{placeholder}` no fill names (a typo in the test).
 */
export function asWritten(example: string, emulator: Emulator, fills: Fills = {}): string {
  let text = example
    .replaceAll("https://gateway.ai.cloudflare.com", emulator.url)
    .replaceAll("https://api.cloudflare.com", emulator.url)
    .replaceAll("{account_id}", emulator.accountId);
  for (const [name, value] of Object.entries(fills)) text = text.replaceAll(name, value);
  const left = /\{[a-z_]*(?:token|id|key)[a-z_]*\}/i.exec(text);
  if (left) throw new Error(`The example still has the placeholder ${left[0]}`);
  return text;
}

/** What `curl` printed, and how `bash` ended. */
export interface CurlRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a curl example under `bash -c`, with `env` added (the page's `$CLOUDFLARE_API_TOKEN` and
 * the like). Resolves when bash exits; a failing command is a result, not a rejection.
 */
export function runCurl(command: string, env: Readonly<Record<string, string>> = {}) {
  return new Promise<CurlRun>((resolve) => {
    execFile(
      "bash",
      ["-c", command],
      { env: { ...process.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The JSON curl printed (a whole answer); names the output when it is not JSON. */
export function jsonOf(run: CurlRun): Record<string, unknown> {
  try {
    return JSON.parse(run.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`curl printed no JSON (exit ${run.code}): ${run.stdout}${run.stderr}`);
  }
}

/** The `data:` events of a server-sent stream curl printed, parsed (`[DONE]` left out). */
export function streamEventsOf(run: CurlRun): unknown[] {
  return run.stdout
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice("data: ".length)) as unknown);
}
