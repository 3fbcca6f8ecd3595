// An episodes run on the dashboard, in headless Chromium against the real admin server: the outcome-rate chart per
// weight version (hidden before an episode finished) holds every version's rate, the first one included, the facts
// name the first and the latest versions as status does, and the reward chart's axis fits step rewards of ±2.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, hasChromium, launchChromium, type LaunchedChromium } from "./chromium.ts";
import { startDashboardHarness, type DashboardHarness } from "./dashboard-harness.ts";

const skipNote = hasChromium ? "" : ` — SKIPPED: ${chromiumPath} is absent (install it with: apt-get install -y chromium)`;

interface ChartRead {
  labels: string[];
  data: Array<Array<number | null>>;
  scales: Record<string, { min: number; max: number }>;
}

const readChart = (page: Page, id: string) =>
  page.$eval(`#${id}`, (node) => {
    const chart = (node as unknown as { uplot: { series: Array<{ label: string }>; data: Array<Array<number | null>>; scales: Record<string, { min: number; max: number }> } }).uplot;
    const scales = Object.fromEntries(Object.entries(chart.scales).map(([key, scale]) => [key, { min: scale.min, max: scale.max }]));
    return { labels: chart.series.map((series) => series.label), data: chart.data.map((column) => Array.from(column)), scales } as ChartRead;
  });

describe.skipIf(!hasChromium)(`episodes on the dashboard in headless Chromium${skipNote}`, () => {
  let browser: LaunchedChromium;
  let harness: DashboardHarness;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    harness = await startDashboardHarness({ method: "binary", batchSize: 4, stream: { tickMs: 50 } });
    page = await browser.context.newPage();
    page.setDefaultTimeout(8000);
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(harness.pageUrl);
    await page.waitForSelector("body[data-connection=live]", { timeout: 10_000 });
  });

  afterAll(async () => {
    await harness?.close();
    await browser?.dispose();
  });

  it("hides the outcome chart before an episode finished", async () => {
    expect(await page.isHidden("#outcome-figure")).toBe(true);
  });

  it("draws the outcome rate per weight version, from the first version to the latest, and names them in the facts", async () => {
    // six versions, two episodes each; the first fails both, the later ones learn
    const rates: Array<[string, number[]]> = [["0", [0, 0]], ["1", [0, 1]], ["2", [1, 0]], ["3", [1, 1]], ["4", [1, 1]], ["5", [1, 1]]];
    let episode = 0;
    for (const [version, scores] of rates) {
      for (const score of scores) {
        const id = `t:run:${episode++}`;
        harness.bus.emit({ type: "episode-start", episodeId: id, groupId: `t:run:${version}` });
        harness.bus.emit({ type: "episode-end", episodeId: id, groupId: `t:run:${version}`, score, failure: null, steps: 3, weightVersion: version });
      }
    }
    await page.waitForFunction(() => document.getElementById("chart-outcome")?.dataset.points === "6", undefined, { timeout: 10_000 });
    expect(await page.isHidden("#outcome-figure")).toBe(false);
    const chart = await readChart(page, "chart-outcome");
    expect(chart.labels).toEqual(["weight version", "outcome rate", "episodes finished"]);
    expect(chart.data).toEqual([[0, 1, 2, 3, 4, 5], [0, 0.5, 0.5, 1, 1, 1], [2, 2, 2, 2, 2, 2]]);
    const ticks = await page.$eval("#chart-outcome", (node) => (node as unknown as { uplot: { axes: Array<{ _values: string[] }> } }).uplot.axes[0]!._values);
    expect(ticks.filter((tick) => tick !== "")).toEqual(["v0", "v1", "v2", "v3", "v4", "v5"]);
    expect(await page.textContent("#totals")).toContain("outcome by versionv0 0% of 2 · … · v2 50% of 2 · v3 100% of 2 · v4 100% of 2 · v5 100% of 2");
    expect(pageErrors).toEqual([]);
  });

  it("fits the reward chart's axis to step rewards of ±2", async () => {
    const counts = (positive: number, negative: number) => ({ positive, zero: 0, negative });
    for (const [rolloutId, meanReward] of [[0, -1.8], [1, 2]] as const) {
      harness.bus.emit({ type: "batch-delivered", rolloutId, batchId: `b${rolloutId}`, size: 4, meanReward, evalScore: null, counts: meanReward > 0 ? counts(4, 0) : counts(0, 4) });
      harness.bus.emit({ type: "batch-acknowledged", rolloutId, batchId: `b${rolloutId}` });
    }
    await page.waitForFunction(() => document.getElementById("chart-reward")?.dataset.points === "2", undefined, { timeout: 10_000 });
    const chart = await readChart(page, "chart-reward");
    expect(chart.labels.slice(1)).toEqual(["mean reward", "above 0", "0", "below 0"]);
    expect(chart.data[1]).toEqual([-1.8, 2]);
    expect(chart.scales.reward!.min).toBeLessThanOrEqual(-1.8);
    expect(chart.scales.reward!.max).toBeGreaterThanOrEqual(2);
    expect(pageErrors).toEqual([]);
  });
});
