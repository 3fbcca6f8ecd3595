import { defineConfig } from "vitest/config";
import { SlowestFiles } from "./tests/tiers/slowest-files.ts";

// Long end-to-end runs (stock OpenClaw, rehearsal learning curves), the third test tier; `npm run test:e2e`.
export default defineConfig({
  test: {
    name: "e2e",
    include: ["tests/e2e/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 300_000,
    pool: "forks",
    fileParallelism: false,
    reporters: [new SlowestFiles(), "default"],
  },
});
