// The tier rule: which file texts count as starting a process or server, and the sorting of every test file by it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classify, startsItself, testFiles } from "./test-tiers.ts";

const root = join(import.meta.dirname, "..", "..");
const sample = (name: string): string => readFileSync(join(root, "tests/fixtures/test-tiers", name), "utf8");

describe("the tier rule", () => {
  it("sees execa, child_process, Playwright and a listen call", () => {
    for (const name of ["execa.txt", "child-process.txt", "playwright.txt", "listen.txt"]) expect(startsItself(sample(name)), name).toBe(true);
  });

  it("does not count a type-only import or an outgoing request", () => {
    expect(startsItself(sample("client.txt"))).toBe(false);
  });

  it("puts every non-e2e test file in exactly one tier, following imports into helpers and source", () => {
    const tiers = classify(root);
    expect([...tiers.unit, ...tiers.loopback].sort()).toEqual(testFiles(root));
    expect(tiers.unit).toEqual(expect.arrayContaining(["tests/tiers/test-tiers.test.ts", "tests/tiers/unit-guard.test.ts", "tests/lib/lru-cache.test.ts"]));
    // starts the CLI in a child process itself
    expect(tiers.reasons.get("tests/supervisor/start-command.test.ts")).toBe("tests/supervisor/start-command.test.ts");
    // starts the stand-in SGLang server through the proxy tests' harness
    expect(tiers.reasons.get("tests/proxy/proxy-streaming.test.ts")).toBe("tests/proxy/harness.ts");
  });
});
