// method hybrid on the dashboard, in headless Chromium against the real admin server: the Totals name the share of
// judged turns per dispatch case, candidates per sample and the trainer's k*, overlap at k* and OPD subset size, in
// status's words; a binary run's page shows no hybrid row.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Method } from "../../contracts/recipe.ts";
import { chromiumPath, hasChromium, launchChromium, type LaunchedChromium } from "./chromium.ts";
import { startDashboardHarness, type DashboardHarness } from "./dashboard-harness.ts";

const skipNote = hasChromium ? "" : ` — SKIPPED: ${chromiumPath} is absent (install it with: apt-get install -y chromium)`;

describe.skipIf(!hasChromium)(`hybrid's numbers on the dashboard in headless Chromium${skipNote}`, () => {
  let browser: LaunchedChromium;
  const opened: DashboardHarness[] = [];
  const pageErrors: string[] = [];

  async function openPage(method: Method): Promise<{ harness: DashboardHarness; page: Page }> {
    const harness = await startDashboardHarness({ method, batchSize: 4, stream: { tickMs: 50 } });
    opened.push(harness);
    const page = await browser.context.newPage();
    page.setDefaultTimeout(8000);
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(harness.pageUrl);
    await page.waitForSelector("body[data-connection=live]", { timeout: 10_000 });
    return { harness, page };
  }

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    for (const harness of opened) await harness.close();
    await browser?.dispose();
  });

  it("shows the dispatch cases, candidates per sample and the trainer's selection", async () => {
    const { harness, page } = await openPage("hybrid");
    const judged = (turn: number, hybrid: { case: "hint-and-evaluation" | "hint-only" | "evaluation-only" | "neither"; candidates: number }) =>
      harness.bus.emit({ type: "turn-judged", sessionId: "h", turn, method: "hybrid", score: null, hintAccepted: null, sample: null, skipped: null, hybrid });
    judged(0, { case: "hint-and-evaluation", candidates: 3 });
    judged(1, { case: "hint-and-evaluation", candidates: 2 });
    judged(2, { case: "evaluation-only", candidates: 1 });
    judged(3, { case: "neither", candidates: 0 });
    const turns = "hybrid turnshint-and-evaluation 50% · hint-only 0% · evaluation-only 25% · neither 25% · 2.00 candidates per sample";
    await page.waitForFunction((text) => document.getElementById("totals")?.textContent?.includes(text), turns, { timeout: 10_000 });
    expect(await page.textContent("#totals")).toContain("hybrid trainerk* – · overlap at k* – · OPD subset size –");
    harness.bus.emit({ type: "trainer-metrics", step: 1, loss: -0.5, gradNorm: null, logprobDiff: null, lr: null, metrics: { loss: -0.5, sel_k_star_mean: 0.75, sel_overlap_at_k_star: 1.5, opd_subset_size: 2 } });
    const trainer = "hybrid trainerk* 0.75 · overlap at k* 1.50 · OPD subset size 2.00";
    await page.waitForFunction((text) => document.getElementById("totals")?.textContent?.includes(text), trainer, { timeout: 10_000 });
    expect(pageErrors).toEqual([]);
  });

  it("shows no hybrid row for another method", async () => {
    const { harness, page } = await openPage("binary");
    harness.bus.emit({ type: "turn-judged", sessionId: "b", turn: 0, method: "binary", score: 1, hintAccepted: null, sample: null, skipped: "eval +1 without a sample" });
    await page.waitForFunction(() => document.getElementById("totals")?.textContent?.includes("judged1 = "), undefined, { timeout: 10_000 });
    expect(await page.textContent("#totals")).not.toContain("hybrid");
    expect(pageErrors).toEqual([]);
  });
});
