/**
 * `stepwise rotate` against the real Worker bundle over HTTP on 127.0.0.1: the key comes from a
 * file or stdin, the token from the environment, and every failure says what to do.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RotateDependencies, rotateCommand } from "../../src/cli/commands/rotate.ts";
import { parseConfig, workerViewText } from "../../src/config/index.ts";
import {
  buildWorkerBundle,
  type RunningWorker,
  startWorker,
  type WorkerBundle,
} from "./worker-harness.ts";

const adminToken = "cli-admin-token-0123456789";
const key = "sk-cli-test-key-000001";
let bundle: WorkerBundle;
let worker: RunningWorker;
let directory: string;

beforeAll(async () => {
  bundle = await buildWorkerBundle();
  worker = await startWorker(bundle.scriptPath, {
    ROTATE_TOKEN: adminToken,
    GATEWAY_URL: "http://127.0.0.1:9",
    STEPWISE_CONFIG: workerViewText(
      parseConfig({
        accountId: "0123456789abcdef0123456789abcdef",
        gateways: [
          { id: "chat", routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } },
        ],
        keys: { providers: ["openai"] },
      }),
    ),
  });
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-rotate-"));
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await bundle?.remove();
  if (directory) await rm(directory, { recursive: true, force: true });
});

async function rotate(
  args: string[],
  dependencies: Partial<RotateDependencies> = {},
): Promise<string[]> {
  const printed: string[] = [];
  await rotateCommand({
    env: { STEPWISE_ROTATE_TOKEN: adminToken, STEPWISE_WORKER_URL: worker.url },
    readStdin: async () => `${key}\n`,
    print: (line) => printed.push(line),
    ...dependencies,
  })
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
    .parseAsync(args, { from: "user" });
  return printed;
}

describe("stepwise rotate", () => {
  it("rotates from a key file and prints the version and fingerprint, not the key", async () => {
    const file = path.join(directory, "openai.key");
    await writeFile(file, `${key}\r\n`);
    const printed = await rotate([
      "openai",
      "--key-file",
      file,
      "--label",
      "ci:42",
      "--expires-at",
      "2099-01-01T00:00:00Z",
    ]);
    const text = printed.join("\n");
    expect(text).toMatch(/openai rotated to version \d{13}-[a-z0-9]+/);
    expect(text).toMatch(
      /fingerprint sha256:[0-9a-f]{12} · label ci:42 · expires 2099-01-01T00:00:00.000Z/,
    );
    expect(text).not.toContain(key);
    const stored = await fetch(`${worker.url}/keys/openai`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(((await stored.json()) as { current: { label: string } }).current.label).toBe("ci:42");
  });

  it("reads the key from stdin with --key-file - and takes the URL from --worker", async () => {
    const printed = await rotate(
      ["openai", "--key-file", "-", "--worker", `${worker.url}/`, "--json"],
      {
        env: { STEPWISE_ROTATE_TOKEN: adminToken },
      },
    );
    expect(JSON.parse(printed.join("\n"))).toMatchObject({
      provider: "openai",
      label: "stepwise-cli",
      state: "current",
    });
  });

  // Usage errors (exit code 2) are the command line's fault; rotate_failed (exit code 1) is the
  // Worker's refusal or absence.
  const failures: [string, string[], Partial<RotateDependencies>, string, RegExp][] = [
    [
      "no admin token",
      ["openai", "-k", "-"],
      { env: { STEPWISE_WORKER_URL: "http://127.0.0.1:9" } },
      "usage_invalid",
      /STEPWISE_ROTATE_TOKEN is not set/,
    ],
    [
      "no Worker URL",
      ["openai", "-k", "-"],
      { env: { STEPWISE_ROTATE_TOKEN: "x" } },
      "usage_invalid",
      /No Worker URL: pass --worker/,
    ],
    [
      "a key with two lines",
      ["openai", "-k", "-"],
      { readStdin: async () => `${key}\n${key}\n` },
      "usage_invalid",
      /contains whitespace/,
    ],
    [
      "an empty key",
      ["openai", "-k", "-"],
      { readStdin: async () => "\n" },
      "usage_invalid",
      /The key from stdin is empty/,
    ],
    [
      "a missing key file",
      ["openai", "-k", "/nonexistent/openai.key"],
      {},
      "usage_invalid",
      /Cannot read the key file \/nonexistent\/openai.key \(ENOENT\)/,
    ],
    [
      "an unknown provider",
      ["opnai", "-k", "-"],
      {},
      "rotate_failed",
      /refused the rotation \(400 unknown_provider\): Unknown provider "opnai"/,
    ],
    [
      "a provider the config does not manage",
      ["anthropic", "-k", "-"],
      {},
      "rotate_failed",
      /400 provider_not_managed/,
    ],
    [
      "an unreachable Worker",
      ["openai", "-k", "-", "--worker", "http://127.0.0.1:9"],
      {},
      "rotate_failed",
      /Could not reach the Worker at http:\/\/127.0.0.1:9/,
    ],
    ["a bad URL", ["openai", "-k", "-", "--worker", "not a url"], {}, "usage_invalid", /not a URL/],
  ];
  it.each(failures)("fails clearly on %s", async (_name, args, dependencies, code, message) => {
    const error = await rotate(args, dependencies).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain(key);
  });

  it("fails clearly on a wrong admin token", async () => {
    await expect(
      rotate(["openai", "-k", "-", "--worker", worker.url], {
        env: { STEPWISE_ROTATE_TOKEN: "wrong" },
      }),
    ).rejects.toThrow(/refused the rotation \(401 unauthorized\).*Check STEPWISE_ROTATE_TOKEN/);
  });

  it("requires --key-file and never accepts the key as an argument", async () => {
    await expect(rotate(["openai"])).rejects.toMatchObject({
      code: "commander.missingMandatoryOptionValue",
    });
    await expect(rotate(["openai", key, "-k", "-"])).rejects.toMatchObject({
      code: "commander.excessArguments",
    });
  });
});
