import { defineConfig } from "vitest/config";

// Unit and loopback integration tests: fast, no GPUs, no network beyond 127.0.0.1.
export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["tests/e2e/**", "node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
