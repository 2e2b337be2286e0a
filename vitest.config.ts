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
    ],
  },
});
