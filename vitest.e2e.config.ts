import { defineConfig } from "vitest/config";

// Long end-to-end runs (stock OpenClaw, rehearsal learning curves); `npm run test:e2e`.
export default defineConfig({
  test: {
    include: ["tests/e2e/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 300_000,
    pool: "forks",
    fileParallelism: false,
  },
});
