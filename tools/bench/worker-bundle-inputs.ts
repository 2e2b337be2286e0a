/**
 * @module
 * What the companion Worker's bundle carries, read from esbuild's metafile of the same build
 * (`wrangler deploy --dry-run --metafile`, see `buildWorkerBundle`): each input's bytes in
 * `index.js`, grouped by package (`zod`, `hono`) or source folder (`src/worker`), and the inputs it
 * must never carry because the Worker never runs them. The sizes benchmark prints the groups;
 * test/e2e/worker-bundle.test.ts fails on any unwanted input.
 */
import { readFile } from "node:fs/promises";

/** Bytes in the bundle per group of inputs. */
export interface BundleInputGroup {
  /** `zod`, `@scope/name`, `src/config`, … */
  readonly name: string;
  readonly bytes: number;
  readonly files: number;
}

/** Inputs the Worker never runs, each with why it must stay out. */
export const unwantedWorkerInputs: readonly { readonly pattern: RegExp; readonly what: string }[] =
  [
    {
      pattern: /^node_modules\/yaml\//,
      what: "the YAML parser (the Worker reads its view as JSON)",
    },
    {
      pattern: /^src\/config\/(yaml-document|load|parse|findings)\.ts$/,
      what: "the config parser (the Worker reads only its view: src/config/worker-view-read.ts)",
    },
    {
      pattern:
        /^src\/config\/(schema|checks|policy-checks|policy-schema|route-schema|gateway-schema)\.ts$/,
      what: "the whole config's schema and checks (the Worker reads only its view)",
    },
    {
      pattern: /^node_modules\/zod\//,
      what: "zod (the Worker checks its view and its bodies by hand: src/config/plain-checks.ts)",
    },
    {
      pattern: /^src\/config\/(worker-view|field-schemas|price-schema|worker-settings-schema)\.ts$/,
      what: "the view's zod schema (the Worker reads its view with src/config/worker-view-read.ts)",
    },
    {
      pattern: /^src\/(analytics|chaos|cli|client|demo|emulator|pulumi|worker-admin)\//,
      what: "code that runs outside the Worker",
    },
  ];

/** Each input of the bundle's `index.js` and its bytes there. */
export async function readBundleInputs(metafilePath: string): Promise<Map<string, number>> {
  const metafile = JSON.parse(await readFile(metafilePath, "utf8")) as {
    outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
  };
  const output = Object.entries(metafile.outputs).find(([name]) => name.endsWith("/index.js"));
  if (output === undefined) throw new Error(`${metafilePath} describes no index.js`);
  return new Map(
    Object.entries(output[1].inputs).map(([name, input]) => [name, input.bytesInOutput]),
  );
}

function groupOf(input: string): string {
  const parts = input.split("/");
  if (parts[0] === "node_modules")
    return parts[1]!.startsWith("@") ? `${parts[1]}/${parts[2]}` : parts[1]!;
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** The inputs grouped by package or source folder, largest first; empty inputs left out. */
export function groupBundleInputs(inputs: ReadonlyMap<string, number>): BundleInputGroup[] {
  const groups = new Map<string, { bytes: number; files: number }>();
  for (const [input, bytes] of inputs) {
    if (bytes === 0) continue;
    const group = groups.get(groupOf(input)) ?? { bytes: 0, files: 0 };
    group.bytes += bytes;
    group.files += 1;
    groups.set(groupOf(input), group);
  }
  return [...groups]
    .map(([name, group]) => ({ name, ...group }))
    .sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
}

/** `input: why` for each input the bundle should not carry. */
export function unwantedBundleInputs(inputs: ReadonlyMap<string, number>): string[] {
  return [...inputs.keys()].flatMap((input) => {
    const rule = unwantedWorkerInputs.find(({ pattern }) => pattern.test(input));
    return rule === undefined ? [] : [`${input}: ${rule.what}`];
  });
}
