// A vitest reporter that names the slowest test files of each tier after a run (import time + tests), so a slow file is
// found without rerunning; it prints only durations and leaves pass/fail reporting to the default reporter after it.
import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/** How many files each tier names. */
const SHOWN = 10;

interface Timing {
  file: string;
  /** Importing the file and collecting its tests, in ms. */
  importMs: number;
  /** Running its tests and hooks, in ms. */
  testsMs: number;
  state: string;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const byTier = new Map<string, Timing[]>();
    for (const module of modules) {
      const diagnostic = module.diagnostic();
      const tier = module.project.name || "tests";
      const timings = byTier.get(tier) ?? [];
      timings.push({ file: relative(module.project.config.root, module.moduleId), importMs: diagnostic.collectDuration, testsMs: diagnostic.duration, state: module.state() });
      byTier.set(tier, timings);
    }
    const lines: string[] = [];
    for (const [tier, timings] of [...byTier].sort(([a], [b]) => a.localeCompare(b))) {
      const total = (t: Timing): number => t.importMs + t.testsMs;
      timings.sort((a, b) => total(b) - total(a));
      const sum = timings.reduce((acc, t) => acc + total(t), 0);
      lines.push(` ${tier}: ${timings.length} file${timings.length === 1 ? "" : "s"}, ${seconds(sum)} of import + tests summed over files; the slowest:`);
      for (const t of timings.slice(0, SHOWN)) {
        const mark = t.state === "passed" ? "" : ` (${t.state})`;
        lines.push(`   ${seconds(total(t)).padStart(8)}  ${t.file}  (import ${seconds(t.importMs)}, tests ${seconds(t.testsMs)})${mark}`);
      }
    }
    if (lines.length > 0) process.stdout.write(`\n Slowest files per tier\n${lines.join("\n")}\n`);
  }
}
