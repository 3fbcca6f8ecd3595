// How evaluations are shown: a terminal table per version with its intervals and its run, the markdown report and a
// small SVG chart (mean score per weight version with its 95% interval), written by our own code. Formatting only.
import type { VersionMetrics } from "../../contracts/evaluation.ts";

const percent = (value: number | null) => (value === null ? "–" : `${(value * 100).toFixed(1)}%`);
const interval = (ci: { low: number; high: number } | null) => (ci === null ? "–" : `[${percent(ci.low)}, ${percent(ci.high)}]`);

function rows(evaluations: readonly VersionMetrics[]): string[][] {
  const withEpisodes = evaluations.some((metrics) => metrics.episodes);
  return evaluations.map((metrics) => [
    metrics.version + (metrics.versionAtEnd !== undefined && metrics.versionAtEnd !== metrics.version ? `→${metrics.versionAtEnd}` : "") + (metrics.baseVersion === null ? " (base)" : "") + servedFrom(metrics),
    `${metrics.scored}/${metrics.sessions}`,
    percent(metrics.meanScore),
    interval(metrics.scoreCi),
    percent(metrics.winRate),
    interval(metrics.winRateCi),
    `${metrics.requests.policy}+${metrics.requests.simulator}+${metrics.requests.scorer}`,
    ...(withEpisodes ? episodeCells(metrics.episodes) : []),
    metrics.run ?? "–",
  ]);
}

/** A checkpoint's version says so, with the saved weights' name (a live version says nothing). */
function servedFrom(metrics: VersionMetrics): string {
  if (metrics.served !== "checkpoint") return "";
  return ` · checkpoint ${metrics.checkpoint ? metrics.checkpoint.split("/").filter(Boolean).pop() : "base weights"}`;
}

function episodeCells(episodes: VersionMetrics["episodes"]): string[] {
  if (!episodes) return ["–", "–", "–", "–"];
  return [percent(episodes.outcomeRate), interval(episodes.outcomeCi), percent(episodes.passAtK), interval(episodes.passAtKCi)];
}

const CHAT_HEADER = ["version", "scored", "mean score", "95% CI", "win vs base", "95% CI", "requests (policy+sim+scorer)"];

function header(evaluations: readonly VersionMetrics[]): string[] {
  const k = evaluations.find((metrics) => metrics.episodes)?.episodes?.k;
  return [...CHAT_HEADER, ...(k === undefined ? [] : ["episode outcome", "95% CI", `pass@${k}`, "95% CI"]), "run"];
}

export function evaluationTable(evaluations: readonly VersionMetrics[]): string {
  const HEADER = header(evaluations);
  const table = [HEADER, ...rows(evaluations)];
  const widths = HEADER.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  return `${table.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd()).join("\n")}\n`;
}

/** `notes`: lines after the table (the sessions until a stable effect). */
export function evaluationMarkdown(evaluations: readonly VersionMetrics[], chartFile: string | null, notes: readonly string[] = []): string {
  const HEADER = header(evaluations);
  const lines = [
    "# Held-out evaluation",
    "",
    "Mean session score in [0, 1] (the scorer's rubric votes / 10) with its 95% t interval; the win rate against the base is paired on the same openers and simulator seeds (ties count half), with a Wilson interval. Held-out episodes (when configured): the mean outcome and pass@k (a score of 1 passes), Wilson intervals. A live version runs through the proxy as side turns (never trained); a version marked `checkpoint` was served from saved weights by a server of its own (docs/evaluation.md). `a→b`: the version served moved from a to b during the evaluation (training went on), so its sessions mix versions.",
    "",
    `| ${HEADER.join(" | ")} |`,
    `| ${HEADER.map(() => "---").join(" | ")} |`,
    ...rows(evaluations).map((row) => `| ${row.join(" | ")} |`),
    "",
    ...notes.flatMap((note) => [note, ""]),
  ];
  if (chartFile) lines.push(`![mean score per weight version](${chartFile})`, "");
  return lines.join("\n");
}

/** Mean score per version (x: evaluation order, labelled by version) with its interval as a bar; y from 0 to 1. */
export function evaluationSvg(evaluations: readonly VersionMetrics[]): string {
  const width = 520;
  const height = 260;
  const margin = { left: 48, right: 16, top: 20, bottom: 40 };
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const x = (index: number) => margin.left + (evaluations.length <= 1 ? plotWidth / 2 : (index * plotWidth) / (evaluations.length - 1));
  const y = (value: number) => margin.top + plotHeight * (1 - Math.min(1, Math.max(0, value)));
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
  ];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line x1="${margin.left}" x2="${width - margin.right}" y1="${y(tick)}" y2="${y(tick)}" stroke="#ddd"/>`, `<text x="${margin.left - 6}" y="${y(tick) + 4}" text-anchor="end">${tick}</text>`);
  }
  const points = evaluations.map((metrics, index) => ({ metrics, index })).filter(({ metrics }) => metrics.meanScore !== null);
  if (points.length > 1) parts.push(`<polyline fill="none" stroke="#2563eb" stroke-width="2" points="${points.map(({ metrics, index }) => `${x(index)},${y(metrics.meanScore!)}`).join(" ")}"/>`);
  for (const { metrics, index } of points) {
    if (metrics.scoreCi) parts.push(`<line x1="${x(index)}" x2="${x(index)}" y1="${y(metrics.scoreCi.low)}" y2="${y(metrics.scoreCi.high)}" stroke="#2563eb" stroke-opacity="0.5" stroke-width="6"/>`);
    parts.push(`<circle cx="${x(index)}" cy="${y(metrics.meanScore!)}" r="4" fill="#2563eb"/>`);
  }
  evaluations.forEach((metrics, index) => parts.push(`<text x="${x(index)}" y="${height - margin.bottom + 16}" text-anchor="middle">v${metrics.version}</text>`));
  parts.push(`<text x="${margin.left + plotWidth / 2}" y="${height - 6}" text-anchor="middle">held-out mean score per weight version (95% CI)</text>`, "</svg>");
  return `${parts.join("\n")}\n`;
}
