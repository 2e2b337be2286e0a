/**
 * @module
 * Writes the stack file's JSON Schema (`src/config/json-schema.ts`): into the package
 * (`dist/stepwise-config.schema.json`, from `npm run build`) and, with `--check-in`, the copy the
 * repository keeps for its own stack files (`schema/stepwise-config.schema.json`).
 *
 * Usage: `tsx tools/build/json-schema.ts [--check-in]`
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { jsonSchemaFileName, stackFileJsonSchemaText } from "../../src/config/json-schema.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The checked-in copy, which the repository's stack files reference. */
export const checkedInSchemaPath = path.join(root, "schema", jsonSchemaFileName);

/** Writes the schema into `directory` (default `dist/`); returns the file's path. */
export async function writeJsonSchema(directory = path.join(root, "dist")): Promise<string> {
  await mkdir(directory, { recursive: true });
  const file = path.join(directory, jsonSchemaFileName);
  await writeFile(file, stackFileJsonSchemaText());
  return file;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const directory = process.argv.includes("--check-in")
    ? path.dirname(checkedInSchemaPath)
    : undefined;
  writeJsonSchema(directory).then(
    (file) => console.log(`wrote ${path.relative(root, file)}`),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
