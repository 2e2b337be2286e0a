/**
 * @module
 * Prints the `STEPWISE_CONFIG` value for a stack: the parsed config as compact JSON without its
 * secrets, exactly what Pulumi binds to the deployed Worker. `npm run worker:dev` passes it to
 * `wrangler dev`.
 *
 * Usage: `node --import tsx tools/scripts/worker-config.ts [--stack dev | --file path]`
 */
import { workerConfigJson } from "../../infra/worker-bindings.ts";
import { loadConfig } from "../../src/config/index.ts";

const argumentsAfter = (flag: string) => {
  const index = process.argv.indexOf(flag);
  return index === -1 ? undefined : process.argv[index + 1];
};

const file = argumentsAfter("--file");
const { config } = file
  ? await loadConfig({ file, cwd: process.cwd() })
  : await loadConfig({ stack: argumentsAfter("--stack") ?? "dev", cwd: process.cwd() });
process.stdout.write(workerConfigJson(config));
