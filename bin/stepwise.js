#!/usr/bin/env node
// The `stepwise` command. Sources are TypeScript; tsx loads them without a build step.
import { register } from "tsx/esm/api";

// A reader that stops early (`stepwise report --json | head`) closes the pipe: that is not an
// error, so exit quietly instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE")
      process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
    throw error;
  });
}

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
