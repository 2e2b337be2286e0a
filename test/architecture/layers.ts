/**
 * @module
 * The layers of `src/`: what each folder may import. test/architecture/import-graph.test.ts holds
 * the code to it; ARCHITECTURE.md shows the same table, held to it by test/docs/map.test.ts.
 */

/** What each folder of src/ may import (besides itself and packages). Lower layers first. */
export const allowed: Readonly<Record<string, readonly string[]>> = {
  errors: [],
  // One parser per wire fact (rate-limit headers, universal bodies), shared by client, Worker and
  // emulator so they cannot disagree.
  wire: [],
  config: ["errors"],
  providers: ["errors"],
  routes: ["config", "providers"],
  client: ["errors", "config", "providers", "routes", "wire"],
  worker: ["errors", "config", "providers", "routes", "wire"],
  "worker-admin": ["errors"],
  emulator: ["errors", "config", "providers", "routes", "wire"],
  // The Pulumi components (the `/pulumi` entry): config and routes compile into resources.
  pulumi: ["errors", "config", "providers", "routes"],
  // The report reads an attempt's place in its route (`wire/attempt-place.ts`) from the logs.
  analytics: ["errors", "config", "providers", "routes", "wire", "client", "worker"],
  demo: [
    "errors",
    "config",
    "providers",
    "routes",
    "client",
    "emulator",
    "analytics",
    "worker-admin",
  ],
  chaos: [
    ...["errors", "config", "providers", "routes", "client", "emulator", "analytics"],
    ...["worker-admin", "demo"],
  ],
  cli: [
    ...["errors", "config", "providers", "routes", "client", "emulator", "analytics"],
    // `stepwise plan` runs the components; `stepwise init` writes a program that uses them.
    ...["worker-admin", "demo", "chaos", "pulumi"],
  ],
};
