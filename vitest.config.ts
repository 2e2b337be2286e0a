import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/worker/**", "node_modules/**"],
          environment: "node",
          // Plain output whatever the terminal: picocolors turns colours on when CI is set.
          env: { NO_COLOR: "1" },
          // Whatever a test file leaves running is stopped, and the file fails naming it.
          setupFiles: ["test/setup/no-orphans.ts"],
          // Hang detectors, not speed limits: generous enough for a machine whose cores are all
          // busy (npm run test:under-load), since no test asserts how fast anything runs.
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // expect.poll waits for something to happen; on a busy machine it may take seconds.
          expect: { poll: { timeout: 30_000 } },
        },
      },
      {
        plugins: [
          // Workers tests run in workerd with wrangler.jsonc's bindings (a real local KV `KEYS`);
          // each test builds its own env (secrets, config, a recording EVENTS) around that KV.
          cloudflareTest({ wrangler: { configPath: "./wrangler.jsonc" } }),
        ],
        test: {
          name: "workers",
          include: ["test/worker/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          expect: { poll: { timeout: 30_000 } },
        },
      },
    ],
  },
});
