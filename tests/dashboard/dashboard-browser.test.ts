// The dashboard in headless Chromium against the real admin server: the page loads, its charts and table
// follow judged turns live (no reload), a row opens its detail, and 10,000 turns keep it fast and bounded.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, hasChromium, launchChromium, type LaunchedChromium } from "./chromium.ts";
import { startDashboardHarness, type DashboardHarness } from "./dashboard-harness.ts";
import { createSyntheticRun, emitEngines, emitTurn, type SyntheticRun } from "./synthetic-run.ts";

const skipNote = hasChromium ? "" : ` — SKIPPED: ${chromiumPath} is absent (install it with: apt-get install -y chromium)`;
if (!hasChromium) console.warn(`dashboard browser tests skipped: ${chromiumPath} is absent (apt-get install -y chromium)`);

// one browser for the file (each test opens its own page); launched lazily so a skipped file starts nothing
let shared: Promise<LaunchedChromium> | null = null;
const browserFor = () => (shared ??= launchChromium());
afterAll(async () => {
  if (shared) await (await shared).dispose();
});

const chartPoints = (page: Page, id: string) => page.$eval(`#${id}`, (node) => Number((node as HTMLElement).dataset.points));

describe.skipIf(!hasChromium)(`dashboard in headless Chromium${skipNote}`, () => {
  let browser: LaunchedChromium;
  let harness: DashboardHarness;
  let run: SyntheticRun;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await browserFor();
    harness = await startDashboardHarness({ method: "combine", batchSize: 4, stream: { tickMs: 50 }, limits: { pageSize: 10 } });
    run = createSyntheticRun(harness.bus, { method: "combine", batchSize: 4, recordsDir: harness.recordsDir });
    emitEngines(harness.bus);
    for (let turn = 0; turn < 12; turn++) emitTurn(run, `early-${turn % 2}`, turn);
    page = await browser.context.newPage();
    page.setDefaultTimeout(8000);
    page.on("pageerror", (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await harness?.close();
  });

  it("loads the page, takes the token out of the address bar and shows the run so far", async () => {
    await page.goto(harness.pageUrl);
    await page.waitForSelector("body[data-connection=live]", { timeout: 10_000 });
    expect(page.url()).toBe(`${harness.baseUrl}/dashboard`);
    expect(await page.textContent("#engines")).toContain("policy");
    expect(await page.textContent("#method")).toBe("combine");
    expect(await page.textContent("#run-id")).toMatch(/^\d{8}-\d{6}$/);
    expect(await page.textContent("#progress")).toMatch(/^weight version \d+ · \d+ batches trained · no end planned/);
    expect(await page.textContent("#open-batch")).toMatch(/^since the last batch: \d+ turns judged: \d+ good · \d+ neutral · \d+ bad · hints: \d+ accepted, \d+ rejected$/);
    expect(await chartPoints(page, "chart-reward")).toBe(run.rolloutId);
    expect(await page.$$eval("#turn-rows tr", (rows) => rows.length)).toBe(10); // one page of the 12
    expect(await page.$eval("#older-page", (button) => (button as HTMLButtonElement).disabled)).toBe(false);
    expect(pageErrors).toEqual([]);
  });

  it("updates charts, counters and the table live as turns are judged, without reloading", async () => {
    await page.evaluate(() => ((window as unknown as { loadMarker: number }).loadMarker = 42));
    const batchesBefore = await chartPoints(page, "chart-reward");
    const latencyBefore = await chartPoints(page, "chart-latency");
    for (let turn = 0; turn < 12; turn++) emitTurn(run, "live-session", turn, 1);
    await page.waitForFunction((count) => Number(document.getElementById("chart-reward")!.dataset.points) === count, run.rolloutId, { timeout: 10_000 });
    expect(run.rolloutId).toBeGreaterThan(batchesBefore);
    expect(await chartPoints(page, "chart-latency")).toBe(latencyBefore + 12);
    expect(await chartPoints(page, "chart-eval")).toBe(run.rolloutId);
    expect(await chartPoints(page, "chart-weights")).toBe(run.version);
    await page.waitForFunction(() => document.querySelector("#turn-rows tr")?.textContent?.includes("live-session"), undefined, { timeout: 5000 });
    expect(await page.textContent("#totals")).toContain("24 (24 main · 0 side)");
    expect(await page.textContent("#weight-version")).toBe(String(run.version));
    expect(await page.evaluate(() => (window as unknown as { loadMarker?: number }).loadMarker)).toBe(42);
    harness.bus.emit({ type: "engine-state", name: "judge", state: "down", detail: "exited with code 1" });
    await page.waitForSelector("#engines .state-down");
    expect(pageErrors).toEqual([]);
  });

  it("opens a row's detail: the conversation, the judge's votes and the hint, never a key", async () => {
    const page1 = (await (await fetch(`${harness.baseUrl}/dashboard/api/turns`, { headers: { authorization: `Bearer ${harness.token}` } })).json()) as {
      rows: { sessionId: string; turn: number; hintAccepted: boolean | null }[];
    };
    const withHint = page1.rows.find((row) => row.sessionId === "live-session" && row.hintAccepted === true);
    expect(withHint).toBeDefined();
    const turn = withHint!.turn;
    await page.click(`#turn-rows tr[data-session="live-session"][data-turn="${turn}"]`);
    await page.waitForSelector(`#detail[data-loaded="live-session:${turn}"]`);
    const detail = (await page.textContent("#detail"))!;
    expect(detail).toContain(`Please summarise report ${turn} of live-session. My key is [redacted].`);
    expect(detail).toContain("Judge votes");
    expect(detail).toMatch(/eval: [+-]?\d/);
    expect(detail).toContain(`hint: Check which report the user means before summarising (turn ${turn}).`);
    expect(detail).toContain("next state (user)");
    expect(detail).not.toContain("sk-live");
    expect(await page.content()).not.toContain(harness.token);
  });

  it("pages to older turns and back to the live page", async () => {
    await page.click("#detail-close");
    await page.click("#older-page");
    // 24 turns, 10 a page: the second page is live-session turns 1..0 and early turns 11..4
    await page.waitForFunction(() => document.querySelector("#turn-rows tr")?.getAttribute("data-turn") === "1");
    expect(await page.$$eval("#turn-rows tr", (rows) => rows.map((row) => row.children[1]!.textContent))).toEqual(["1", "0", "11", "10", "9", "8", "7", "6", "5", "4"]);
    emitTurn(run, "while-paged", 0, 1);
    await page.waitForFunction(() => document.getElementById("new-turns")?.textContent === "1 newer turns", undefined, { timeout: 5000 });
    expect(await page.$eval("#newest-page", (button) => (button as HTMLButtonElement).disabled)).toBe(false);
    await page.click("#newest-page");
    await page.waitForFunction(() => document.querySelector("#turn-rows tr")?.textContent?.includes("while-paged"));
    expect(await page.textContent("#new-turns")).toBe("live");
  });

  it("labels trained and delivered batches, says where every sample is as one sum, and follows a trainer restart (version 0, the reset listed)", async () => {
    const totals = (await page.textContent("#totals"))!;
    expect(totals).toContain(`batches${run.rolloutId} trained · ${run.rolloutId} delivered (${run.rolloutId * 4} samples handed out, re-deliveries included)`);
    // status's words: made = ready + in training + trained + dropped stale; judged = made + without a sample
    const made = run.rolloutId * 4 + run.ready;
    expect(totals).toContain(`samples${made} made = ${run.ready} ready + 0 in training + ${run.rolloutId * 4} trained + 0 dropped stale`);
    expect(totals).toMatch(new RegExp(`judged(\\d+) = ${made} made a sample \\+ (\\d+) without a sample`));
    const weightPoints = await chartPoints(page, "chart-weights");
    harness.bus.emit({ type: "weights-version-reset", fromVersion: String(run.version), reason: "slime restarted" });
    await page.waitForFunction(() => document.getElementById("weight-version")?.textContent === "0", undefined, { timeout: 5000 });
    expect(await page.textContent("#weight-list li.weight-reset")).toContain(`${run.version} → 0 · trainer restarted, versions count from 0 again`);
    expect(await chartPoints(page, "chart-weights")).toBe(weightPoints); // a reset is no update: no duration point
    expect(pageErrors).toEqual([]);
  });

  it("says how soon it learns as a stage table in seconds, as status does, and update durations as upper bounds", async () => {
    await page.waitForSelector("#totals table.learning");
    const rows = await page.$$eval("#totals table.learning tr", (rows) => rows.map((row) => Array.from(row.children, (cell) => cell.textContent)));
    expect(rows[0]).toEqual(["stage", "median", "p90"]);
    expect(rows.slice(1).map((row) => row[0])).toEqual(["closed", "judged", "to trainer", "trained", "served", "answer→served"]);
    for (const row of rows.slice(1)) for (const cell of row.slice(1)) expect(cell).toMatch(/^\d+\.\d(s|m)$/);
    expect(await page.textContent("#weight-list li:not(.weight-reset)")).toMatch(/^\d+ → \d+ · ≤\d+s \(between polls\) · /);
    expect(pageErrors).toEqual([]);
  });

  it("shows a session's last answered turn as open: waiting for the session's next message", async () => {
    if (!(await page.$eval("#newest-page", (button) => (button as HTMLButtonElement).disabled))) await page.click("#newest-page"); // back to the live page
    harness.bus.emit({ type: "turn-start", sessionId: "still-open", turn: 0, turnType: "main", decidedBy: "agent-conversation" });
    harness.bus.emit({ type: "turn-end", sessionId: "still-open", turn: 0, turnType: "main", finishReason: "stop", promptTokens: 5, responseTokens: 3, ttftMs: 10, totalMs: 30, weightVersions: ["1"], continuedAfterAbort: 0 });
    await page.waitForSelector('#turn-rows tr[data-session="still-open"]');
    const row = (await page.textContent('#turn-rows tr[data-session="still-open"]'))!;
    expect(row).toContain("open");
    expect(row).toContain("waiting for the session's next message");
    expect(row).not.toContain("awaiting reply");
  });

  it("names the best held-out version, and says training is paused (evaluation.stop_if_worse) until it is resumed", async () => {
    const done = (version: string, meanScore: number) =>
      harness.bus.emit({
        type: "evaluation-done", version, versionAtEnd: version, baseVersion: version === "0" ? null : "0", sessions: 8, scored: 8, meanScore,
        scoreCi: { low: meanScore - 0.1, high: meanScore + 0.1 }, winRate: null, winRateCi: null, requests: { policy: 8, simulator: 0, scorer: 8 }, episodes: null,
      });
    done("0", 0.5);
    done("3", 0.8);
    done("6", 0.3);
    await page.waitForFunction(() => document.getElementById("totals")?.textContent?.includes("best held-out version"), undefined, { timeout: 5000 });
    expect(await page.textContent("#totals")).toContain("best held-out versionv3: score 80.0% [70.0, 90.0]");
    expect(await page.isHidden("#training-paused")).toBe(true);
    const message = "held-out score of version 6 (30.0% [20.0%, 40.0%]) significantly below best version 3 (80.0% [70.0%, 90.0%]): paired difference −50.0 points [−60.0, −40.0] over 8 sessions";
    const drop = { version: "6", meanScore: 0.3, scoreCi: { low: 0.2, high: 0.4 }, bestVersion: "3", bestMeanScore: 0.8, bestScoreCi: { low: 0.7, high: 0.9 }, difference: -0.5, differenceCi: { low: -0.6, high: -0.4 }, pairs: 8 };
    harness.bus.emit({ type: "training-paused", reason: "held-out-worse", message, resume: "`npx openclaw-rl resume-training --run run`", drop });
    await page.waitForSelector("#training-paused", { state: "visible", timeout: 5000 });
    const shown = (await page.textContent("#training-paused"))!;
    expect(shown.startsWith("training paused since ")).toBe(true);
    expect(shown).toContain(`${message} (the proxy keeps serving) · resume: \`npx openclaw-rl resume-training --run run\``);
    harness.bus.emit({ type: "training-resumed", pausedAt: 1, by: "POST /training/resume" });
    await page.waitForSelector("#training-paused", { state: "hidden", timeout: 5000 });
    expect(pageErrors).toEqual([]);
  });

  it("without its token, or with a wrong one, shows a page that says how to open it", async () => {
    const other = await browser.context.newPage();
    const wrong = await other.goto(`${harness.baseUrl}/dashboard?token=not-the-token-000000`);
    expect(wrong?.status()).toBe(401);
    expect(await other.textContent("body")).toContain("The admin token in this link was refused");
    const none = await other.goto(`${harness.baseUrl}/dashboard/`);
    expect(none?.headers()["content-type"]).toMatch(/^text\/html/);
    const text = (await other.textContent("body"))!;
    expect(text).toContain("does not carry");
    expect(text).toContain(`npx openclaw-rl status --run ${harness.recordsDir}`);
    await other.close();
  });
});

describe.skipIf(!hasChromium)(`dashboard with 1,000 sessions and 10,000 turns${skipNote}`, () => {
  let browser: LaunchedChromium;
  let harness: DashboardHarness;

  beforeAll(async () => {
    browser = await browserFor();
    harness = await startDashboardHarness({ method: "combine", batchSize: 16, stream: { tickMs: 100 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  // the render time is printed, not asserted: on a shared 2-core machine it measures the machine (docs/benchmarks.md)
  it("keeps the initial payload bounded, renders the first page of 10,000 turns, then stays live", async () => {
    const run = createSyntheticRun(harness.bus, { method: "combine", batchSize: 16 });
    emitEngines(harness.bus);
    for (let index = 0; index < 10_000; index++) emitTurn(run, `session-${index % 1000}`, Math.floor(index / 1000), index / 10_000);
    const snapshot = await fetch(`${harness.baseUrl}/dashboard/api/snapshot`, { headers: { authorization: `Bearer ${harness.token}` } });
    const bytes = (await snapshot.arrayBuffer()).byteLength;
    expect(bytes).toBeLessThan(600_000);

    const page = await browser.context.newPage();
    await page.goto(harness.pageUrl);
    await page.waitForSelector("body[data-first-render-ms]", { timeout: 60_000 });
    const firstRenderMs = Number(await page.$eval("body", (body) => body.dataset.firstRenderMs));
    console.info(`10,000 turns: snapshot ${bytes} bytes, first render ${firstRenderMs} ms after navigation start`);
    expect(firstRenderMs).toBeGreaterThan(0);
    expect(await page.$$eval("#turn-rows tr", (rows) => rows.length)).toBe(50);
    expect(await chartPoints(page, "chart-latency")).toBe(1500);
    expect(await page.textContent("#totals")).toContain("10000 (10000 main · 0 side)");

    // 1,000 more turns in bursts while the page is open: it follows, and its arrays stay bounded
    for (let burst = 0; burst < 10; burst++) {
      for (let index = 0; index < 100; index++) emitTurn(run, `session-${index}`, 10 + burst, 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await page.waitForFunction(() => document.getElementById("totals")?.textContent?.includes("11000 ("), undefined, { timeout: 60_000 });
    expect(await chartPoints(page, "chart-latency")).toBe(1500);
    expect(await page.$$eval("#turn-rows tr", (rows) => rows.length)).toBe(50);
    await page.close();
  });
});
