import { defineConfig } from "vitest/config";

// Unit and loopback integration tests: fast, no GPUs, no network beyond 127.0.0.1 (the real engines, which need the
// venvs of tests/engines/prepare.sh, run in `npm run test:engines`). The budgets catch a hung test; they
// are not a speed goal (a 2-core CI machine beside a running `start` must pass: a 30 s budget failed a 29 s test).
export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["tests/e2e/**", "tests/engines/**", "node_modules/**"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
