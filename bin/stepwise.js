#!/usr/bin/env node
// The `stepwise` command: runs the built CLI in dist/ (`npm run build`; `npm ci` builds it).

// A reader that stops early (`stepwise report --json | head`) closes the pipe: that is not an
// error, so exit quietly instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE")
      process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
    throw error;
  });
}

let cli;
try {
  cli = await import("../dist/cli/main.js");
} catch (error) {
  if (
    error?.code !== "ERR_MODULE_NOT_FOUND" ||
    !String(error.message).includes("dist/cli/main.js")
  ) {
    throw error;
  }
  console.error("stepwise is not built: run `npm run build` (npm ci builds it) and try again.");
  process.exit(1);
}
process.exitCode = await cli.main(process.argv.slice(2));
