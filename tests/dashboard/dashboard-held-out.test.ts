// The dashboard's held-out evaluation chart in headless Chromium against the real admin server: without evaluation
// it says so in status's words; fed evaluation-done events, the chart's own series (read from its uPlot object, not
// pixels) equal the points: mean, 95% band, the base's band, the best version, held-out tasks' outcome rate.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEventInput } from "../../contracts/events.ts";
import { evaluationLines } from "../../cli/commands/status-evaluation.ts";
import { chromiumPath, hasChromium, launchChromium, type LaunchedChromium } from "./chromium.ts";
import { startDashboardHarness, type DashboardHarness } from "./dashboard-harness.ts";
import { createSyntheticRun, emitEngines, emitTurn } from "./synthetic-run.ts";

const skipNote = hasChromium ? "" : ` — SKIPPED: ${chromiumPath} is absent (install it with: apt-get install -y chromium)`;

type Done = Extract<RunEventInput, { type: "evaluation-done" }>;
type Interval = { low: number; high: number };

/** An evaluation-done event; `outcome` makes it an episodes evaluation (held-out tasks). */
function evaluationDone(version: string, meanScore: number | null, scoreCi: Interval | null, extra: { winRate?: number; outcome?: { rate: number; ci: Interval }; versionAtEnd?: string } = {}): Done {
  return {
    type: "evaluation-done", version, versionAtEnd: extra.versionAtEnd ?? version, baseVersion: version === "0" ? null : "0", sessions: 12, scored: 12, meanScore, scoreCi,
    winRate: extra.winRate ?? null, winRateCi: extra.winRate === undefined ? null : { low: extra.winRate - 0.2, high: Math.min(1, extra.winRate + 0.2) },
    requests: { policy: 36, simulator: 24, scorer: 12 },
    episodes: extra.outcome ? { tasks: 6, episodes: 12, failed: 0, outcomeRate: extra.outcome.rate, outcomeCi: extra.outcome.ci, k: 2, passAtK: extra.outcome.rate, passAtKCi: extra.outcome.ci } : null,
  };
}

interface ChartRead {
  labels: string[];
  data: Array<Array<number | null>>;
  best: string;
  points: number;
}

const readChart = (page: Page) =>
  page.$eval("#chart-held-out", (node) => {
    const chart = (node as unknown as { uplot: { series: Array<{ label: string }>; data: Array<Array<number | null>> } }).uplot;
    return { labels: chart.series.map((series) => series.label), data: chart.data.map((column) => Array.from(column)), best: (node as HTMLElement).dataset.best ?? "", points: Number((node as HTMLElement).dataset.points) } as ChartRead;
  });

let shared: Promise<LaunchedChromium> | null = null;
const browserFor = () => (shared ??= launchChromium());
afterAll(async () => {
  if (shared) await (await shared).dispose();
});

describe.skipIf(!hasChromium)(`held-out evaluation chart in headless Chromium${skipNote}`, () => {
  const harnesses: DashboardHarness[] = [];
  const pageErrors: string[] = [];
  afterAll(async () => {
    for (const harness of harnesses) await harness.close();
  });

  async function open(everyVersions: number): Promise<{ harness: DashboardHarness; page: Page }> {
    const harness = await startDashboardHarness({ method: "combine", batchSize: 4, stream: { tickMs: 50 }, evaluationEveryVersions: everyVersions });
    harnesses.push(harness);
    const page = await (await browserFor()).context.newPage();
    page.setDefaultTimeout(8000);
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(harness.pageUrl);
    await page.waitForSelector("body[data-connection=live]", { timeout: 10_000 });
    return { harness, page };
  }

  it("without evaluation configured, the chart area says so and how to start it, in status's words", async () => {
    const { harness, page } = await open(0);
    const statusLine = evaluationLines({ configured: false, every_versions: 0, stop_if_worse: false, base_version: null, best: null, versions: [] }, harness.recordsDir)[0]!;
    const advice = statusLine.replace(/^held-out\s+/, "");
    expect(advice).toBe(`not configured: set evaluation.every_versions (docs/evaluation.md), or run \`npx openclaw-rl eval --run ${harness.recordsDir}\``);
    expect(await page.textContent("#held-out-empty")).toBe(`No held-out evaluation yet: ${advice}`);
    expect(await page.isHidden("#chart-held-out")).toBe(true);
    await page.close();
  });

  it("configured, before the base is evaluated, it says it waits for the first one", async () => {
    const { page } = await open(2);
    expect(await page.textContent("#held-out-empty")).toBe("No held-out evaluation yet: every 2 versions: none finished yet (the base is evaluated first)");
    await page.close();
  });

  it("draws the mean per weight version with its band, the base's band and the best version; the per-batch chart stays the training signal", async () => {
    const { harness, page } = await open(2);
    const run = createSyntheticRun(harness.bus, { method: "combine", batchSize: 4 });
    emitEngines(harness.bus);
    for (let turn = 0; turn < 8; turn++) emitTurn(run, "s", turn, turn / 8);
    const events = [
      evaluationDone("0", 0.42, { low: 0.33, high: 0.51 }),
      evaluationDone("2", 0.55, { low: 0.46, high: 0.64 }, { winRate: 0.7 }),
      evaluationDone("4", 0.71, { low: 0.62, high: 0.8 }, { winRate: 0.85 }),
      evaluationDone("6", 0.66, { low: 0.57, high: 0.75 }, { winRate: 0.8, versionAtEnd: "7" }),
    ];
    for (const event of events) harness.bus.emit(event);
    await page.waitForFunction(() => document.getElementById("chart-held-out")?.dataset.points === "4", undefined, { timeout: 10_000 });
    expect(await page.isHidden("#held-out-empty")).toBe(true);
    const chart = await readChart(page);
    expect(chart.labels).toEqual(["evaluated", "held-out score (mean)", "score 95% low", "score 95% high", "base 95% low", "base 95% high", "best version"]);
    expect(chart.data).toEqual([
      [0, 1, 2, 3],
      events.map((event) => event.meanScore),
      events.map((event) => event.scoreCi!.low),
      events.map((event) => event.scoreCi!.high),
      [0.33, 0.33, 0.33, 0.33],
      [0.51, 0.51, 0.51, 0.51],
      [null, null, 0.71, null],
    ]);
    expect(chart.best).toBe("4");
    expect(await page.textContent("#held-out-figure figcaption")).toContain("not the training reward");
    // the per-batch judged score is its own chart, under its own name, holding batches, never the held-out points
    const perBatch = await page.$eval("#chart-eval", (node) => {
      const uplot = (node as unknown as { uplot: { series: Array<{ label: string }>; data: unknown[][] } }).uplot;
      return { points: Number((node as HTMLElement).dataset.points), labels: uplot.series.map((series) => series.label), columns: uplot.data.length, legend: node.textContent };
    });
    expect(perBatch.points).toBe(run.rolloutId);
    expect([perBatch.labels.slice(1), perBatch.columns]).toEqual([["judged score (training signal)"], 2]);
    expect(perBatch.legend).toContain("judged score (training signal)");
    // the x axis is drawn on canvas: its tick labels as uPlot last drew them
    const ticks = await page.$eval("#chart-held-out", (node) => (node as unknown as { uplot: { axes: Array<{ _values: string[] }> } }).uplot.axes[0]!._values);
    expect(ticks.filter((tick) => tick !== "")).toEqual(["v0 (base)", "v2", "v4", "v6→7"]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("a version paired with a base not shown yet has no base band; the base weights' point, arriving later, leads as the base", async () => {
    const { harness, page } = await open(0);
    harness.bus.emit({ ...evaluationDone("15", 1, { low: 1, high: 1 }, { winRate: 0.84 }), run: "run-b" });
    await page.waitForFunction(() => document.getElementById("chart-held-out")?.dataset.points === "1", undefined, { timeout: 10_000 });
    expect((await readChart(page)).data.slice(4, 6)).toEqual([[null], [null]]); // (no base band drawn from v15)
    harness.bus.emit({ ...evaluationDone("0", 0.669, { low: 0.516, high: 0.822 }), run: "run-a" });
    await page.waitForFunction(() => document.getElementById("chart-held-out")?.dataset.points === "2", undefined, { timeout: 10_000 });
    const chart = await readChart(page);
    expect(chart.data[1]).toEqual([0.669, 1]);
    expect(chart.data.slice(4, 6)).toEqual([[0.516, 0.516], [0.822, 0.822]]);
    const ticks = await page.$eval("#chart-held-out", (node) => (node as unknown as { uplot: { axes: Array<{ _values: string[] }> } }).uplot.axes[0]!._values);
    expect(ticks.filter((tick) => tick !== "")).toEqual(["v0 (base)", "v15"]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("an episodes evaluation adds the held-out outcome rate and its band", async () => {
    const { harness, page } = await open(1);
    const events = [
      evaluationDone("0", 0.3, { low: 0.2, high: 0.4 }, { outcome: { rate: 0.25, ci: { low: 0.1, high: 0.5 } } }),
      evaluationDone("1", 0.5, { low: 0.4, high: 0.6 }, { outcome: { rate: 0.5, ci: { low: 0.28, high: 0.72 } } }),
      evaluationDone("2", 0.45, { low: 0.35, high: 0.55 }, { outcome: { rate: 0.58, ci: { low: 0.32, high: 0.8 } } }),
    ];
    for (const event of events) harness.bus.emit(event);
    await page.waitForFunction(() => document.getElementById("chart-held-out")?.dataset.points === "3", undefined, { timeout: 10_000 });
    const chart = await readChart(page);
    expect(chart.labels.slice(-3)).toEqual(["held-out outcome rate", "outcome 95% low", "outcome 95% high"]);
    expect(chart.data.slice(-3)).toEqual([events.map((event) => event.episodes!.outcomeRate), events.map((event) => event.episodes!.outcomeCi!.low), events.map((event) => event.episodes!.outcomeCi!.high)]);
    expect(chart.data[6]).toEqual([null, 0.5, null]); // the best by held-out mean score
    expect(chart.best).toBe("1");
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
