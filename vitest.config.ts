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
          testTimeout: 20_000,
        },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.jsonc" },
            // Tests build their own env per test; these only satisfy the declared secrets.
            miniflare: {
              bindings: { ROTATE_TOKEN: "unused-in-tests", GATEWAY_TOKEN: "unused-in-tests" },
            },
          }),
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
