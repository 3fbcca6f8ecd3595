// Makes docs/dashboard.png (and docs/dashboard-detail.png): a short synthetic run paced in real time through
// the real admin server with the dashboard mounted, watched live in headless Chromium.
// Run: npx tsx tests/dashboard/screenshot.ts [docs-dir]   (needs /usr/bin/chromium)
import { join, resolve } from "node:path";
import { launchChromium } from "./chromium.ts";
import { startDashboardHarness } from "./dashboard-harness.ts";
import { createSyntheticRun, emitTurn } from "./synthetic-run.ts";

const docsDir = resolve(process.argv[2] ?? "docs");
const sessions = 24;
const turns = 420;
const turnEveryMs = 25;

const harness = await startDashboardHarness({ method: "combine", batchSize: 16, stream: { tickMs: 200 }, limits: { pageSize: 14 } });
const run = createSyntheticRun(harness.bus, { method: "combine", batchSize: 16, recordsDir: harness.recordsDir, seed: 11 });
const browser = await launchChromium({ width: 1440, height: 1300 });
try {
  harness.bus.emit({ type: "engine-state", name: "rehearsal-policy", state: "ready", detail: "GET http://127.0.0.1:31100/health → 200" });
  harness.bus.emit({ type: "engine-state", name: "rehearsal-judge", state: "ready", detail: "GET http://127.0.0.1:31101/health → 200" });
  harness.bus.emit({ type: "engine-state", name: "rehearsal-trainer", state: "starting", detail: "waiting for the bridge hello" });
  const page = await browser.context.newPage();
  await page.goto(harness.pageUrl);
  await page.waitForSelector("body[data-connection=live]");
  harness.bus.emit({ type: "engine-state", name: "rehearsal-trainer", state: "ready", detail: "said hello on the bridge" });
  for (let index = 0; index < turns; index++) {
    emitTurn(run, `rehearsal-${(index % sessions).toString(16).padStart(4, "0")}e1c9`, Math.floor(index / sessions), index / turns);
    if (index === 200) harness.bus.emit({ type: "sample-dropped", sampleId: "rehearsal-0003e1c9:2", reason: "stale", detail: "5 weight versions behind (training.max_staleness 4)" });
    await new Promise((done) => setTimeout(done, turnEveryMs));
  }
  await page.waitForTimeout(600);
  await page.screenshot({ path: join(docsDir, "dashboard.png") });
  const withHint = page.locator("#turn-rows tr.status-kept").first();
  await withHint.click();
  await page.waitForSelector("#detail[data-loaded]");
  await page.screenshot({ path: join(docsDir, "dashboard-detail.png") });
  process.stdout.write(`wrote ${join(docsDir, "dashboard.png")} and dashboard-detail.png (${turns} turns, ${run.rolloutId} batches)\n`);
} finally {
  await browser.dispose();
  await harness.close();
}
