// tests/fixtures/reference-episodes/citations.json held against our code (the constants our episode clients and
// driver take from the reference) and, where OPENCLAW_RL_REFERENCE names a checkout, against the cited lines.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REFERENCE_TASK_TIMEOUTS } from "../../orchestrator/episodes/episode-driver.ts";
import { GUI_ENDPOINT_ATTEMPTS } from "../../orchestrator/episodes/gui-environment-client.ts";
import { SWE_ENDPOINT_ATTEMPTS } from "../../orchestrator/episodes/swe-environment-client.ts";
import citations from "../fixtures/reference-episodes/citations.json" with { type: "json" };
import { REFERENCE_COMMIT, referenceCheckout } from "../support/reference-checkout.ts";

/** The lines `where` ("file:10-12,15") names in the checkout at `root`, joined. */
export function citedLines(root: string, where: string): string {
  const [file, ranges] = where.split(":") as [string, string];
  const lines = readFileSync(path.join(root, file), "utf8").split("\n");
  return ranges
    .split(",")
    .map((range) => {
      const [first, last = first] = range.split("-").map(Number) as [number, number?];
      return lines.slice(first - 1, last).join("\n");
    })
    .join("\n");
}

describe("the reference's episode facts (tests/fixtures/reference-episodes/citations.json)", () => {
  it("are what our clients and driver use", () => {
    expect(citations.commit).toBe(REFERENCE_COMMIT);
    expect(SWE_ENDPOINT_ATTEMPTS).toEqual(citations.facts.swe_attempts.attempts);
    expect(GUI_ENDPOINT_ATTEMPTS).toEqual(citations.facts.gui_attempts.attempts);
    expect(REFERENCE_TASK_TIMEOUTS).toEqual(citations.facts.task_timeouts.timeouts);
  });

  const checkout = referenceCheckout("swe-rl/swe_env_client.py");
  it.skipIf("missing" in checkout)("are at the cited lines of the reference's checkout (OPENCLAW_RL_REFERENCE)", () => {
    const root = (checkout as { root: string }).root;
    for (const [name, fact] of Object.entries(citations.facts)) {
      const text = citedLines(root, fact.where);
      for (const expected of fact.contains) expect(text, `${name}: ${fact.where}`).toContain(expected);
    }
    for (const protocol of Object.values(citations.protocols)) for (const file of protocol.files) expect(readFileSync(path.join(root, file), "utf8").length).toBeGreaterThan(0);
  });
});
