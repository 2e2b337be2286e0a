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
          testTimeout: 20_000,
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
          testTimeout: 20_000,
        },
      },
    ],
  },
});
