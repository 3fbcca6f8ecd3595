// The page's static files: our HTML/CSS/JS under page/ and uPlot's dist files from node_modules, read once
// and served from memory (no CDN: the page works offline). Knows nothing of tokens or the run.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface Asset {
  body: Buffer;
  contentType: string;
}

const pageDir = join(dirname(fileURLToPath(import.meta.url)), "page");

const pageFiles: Record<string, string> = {
  "dashboard.css": "text/css; charset=utf-8",
  "dashboard.js": "text/javascript; charset=utf-8",
  "charts.js": "text/javascript; charset=utf-8",
  "held-out-chart.js": "text/javascript; charset=utf-8",
  "outcome-chart.js": "text/javascript; charset=utf-8",
  "turn-table.js": "text/javascript; charset=utf-8",
  "format.js": "text/javascript; charset=utf-8",
};

/** `basePath` is where the admin server mounts the dashboard; the page's asset links are made absolute with it. */
export function loadDashboardAssets(basePath: string): { page: Asset; assets: Map<string, Asset> } {
  const assets = new Map<string, Asset>();
  for (const [name, contentType] of Object.entries(pageFiles)) assets.set(name, { body: readFileSync(join(pageDir, name)), contentType });
  const uplotDir = dirname(createRequire(import.meta.url).resolve("uplot"));
  assets.set("uplot.js", { body: readFileSync(join(uplotDir, "uPlot.iife.min.js")), contentType: "text/javascript; charset=utf-8" });
  assets.set("uplot.css", { body: readFileSync(join(uplotDir, "uPlot.min.css")), contentType: "text/css; charset=utf-8" });
  const html = readFileSync(join(pageDir, "index.html"), "utf8").replace(/(href|src)="assets\//g, `$1="${basePath}/assets/`);
  return { page: { body: Buffer.from(html), contentType: "text/html; charset=utf-8" }, assets };
}
