import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { classify } from "./tests/tiers/test-tiers.ts";
import { SlowestFiles } from "./tests/tiers/slowest-files.ts";

// Unit and loopback tests (no GPUs, no network beyond 127.0.0.1) as two vitest projects, sorted by the rule in
// tests/tiers/test-tiers.ts. The budgets catch a hung test; they are not a speed goal (a 2-core CI machine beside a
// running `start` must pass: a 30 s budget once failed a 29 s loopback test). e2e and the real engines
// (tests/engines, which need the venvs of tests/engines/prepare.sh: `npm run test:engines`) have configs of their own.
const tiers = classify(fileURLToPath(new URL(".", import.meta.url)));

export default defineConfig({
  test: {
    pool: "forks",
    reporters: [new SlowestFiles(), "default"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: tiers.unit,
          setupFiles: ["tests/tiers/unit-guard.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "loopback",
          include: tiers.loopback,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
