// Makes docs/dashboard.png, docs/dashboard-detail.png and docs/dashboard-evaluation.png from a real rehearsal run:
// `openclaw-rl start` (combine, the CPU stand-ins, held-out evaluation every 4 versions) on free loopback ports,
// `openclaw-rl demo` through its proxy, the page in Chromium.
// Run: npx tsx tests/dashboard/screenshot.ts [docs-dir] [turns]   (needs /usr/bin/chromium; a few minutes)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { launchChromium } from "./chromium.ts";
import { freePort } from "../support/loopback.ts";

const docsDir = resolve(process.argv[2] ?? "docs");
const turns = Number(process.argv[3] ?? 120);
const repo = resolve(import.meta.dirname, "../..");
const cli = join(repo, "bin/openclaw-rl.mjs");

const runDir = mkdtempSync(join(tmpdir(), "dashboard-rehearsal-"));
const [proxyPort, adminPort, policyPort, judgePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
const recipeArgs = [
  "--method", "combine", "--set", `records.dir=${runDir}`, "--set", "training.batch_size=8", "--set", "evaluation.every_versions=4",
  "--set", `proxy.port=${proxyPort}`, "--set", `proxy.admin_port=${adminPort}`,
  "--set", `engine.rehearsal.policy_port=${policyPort}`, "--set", `engine.rehearsal.judge_port=${judgePort}`,
];
const start = execa("node", [cli, "start", ...recipeArgs], { cwd: repo, reject: false, forceKillAfterDelay: 15_000 });
const browser = await launchChromium({ width: 1440, height: 1300 });
try {
  const dashboardUrl = await new Promise<string>((found, failed) => {
    let output = "";
    const timer = setTimeout(() => failed(new Error(`no dashboard link from start within 120 s:\n${output}`)), 120_000);
    start.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const link = /Dashboard\s+(http:\/\/127\.0\.0\.1:\d+\/dashboard\/\?token=\S+)/.exec(output)?.[1];
      if (link) {
        clearTimeout(timer);
        found(link);
      }
    });
    void start.then(() => failed(new Error(`start exited before printing its banner:\n${output}`)));
  });
  const page = await browser.context.newPage();
  await page.goto(dashboardUrl);
  await page.waitForSelector("body[data-connection=live]");
  const demo = await execa("node", [cli, "demo", ...recipeArgs, "--turns", String(turns)], { cwd: repo, timeout: 300_000 });
  process.stdout.write(`${demo.stdout.split("\n").slice(-3).join("\n")}\n`);
  // the base and at least two trained versions evaluated in the background (each after its version was reached)
  await page.waitForFunction(() => Number(document.getElementById("chart-held-out")?.dataset.points) >= 3, undefined, { timeout: 240_000 });
  await page.waitForTimeout(1000);
  await page.screenshot({ path: join(docsDir, "dashboard.png") });
  await page.locator("#held-out-figure").screenshot({ path: join(docsDir, "dashboard-evaluation.png") });
  await page.locator("#turn-rows tr.status-kept").first().click();
  await page.waitForSelector("#detail[data-loaded]");
  await page.screenshot({ path: join(docsDir, "dashboard-detail.png") });
  process.stdout.write(`wrote ${join(docsDir, "dashboard.png")}, dashboard-detail.png and dashboard-evaluation.png\n`);
} finally {
  await browser.dispose();
  start.kill("SIGINT");
  await start;
  rmSync(runDir, { recursive: true, force: true });
}
