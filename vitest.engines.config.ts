import { defineConfig } from "vitest/config";

// The real engines from PyPI (transformers, SGLang's parsers, Ray) in pinned venvs that tests/engines/prepare.sh makes;
// `npm run test:engines`. Kept out of `npm test`, which stays fast and needs no venv.
export default defineConfig({
  test: {
    include: ["tests/engines/**/*.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: "forks",
    fileParallelism: false,
  },
});
