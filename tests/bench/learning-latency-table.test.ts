// The learning-latency bench's table: ratios against the default side by side, and the same header and row names
// as the table docs/benchmarks.md shows (pasted from a run), so the two cannot drift apart.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { latencyTable, ratio, type MeasuredColumn } from "./learning-latency-table.ts";

const spread = (median: number, p90: number) => ({ median, p90 });
function column(label: string, total: { median: number; p90: number } | null, samples: number): MeasuredColumn {
  const stages = { closed: spread(300, 500), judged: spread(100, 200), handed: spread(4000, 8000), trained: spread(9000, 10_000), served: spread(0, 0), total };
  return { label, latency: { samples, window: samples, stages, awaiting_serve: 0, last_served_update_at: null }, closedBy: { tool: null, user: spread(300, 400) } };
}

describe("learning-latency table", () => {
  const table = latencyTable([column("default", spread(16_000, 20_000), 32), column("batch 4", spread(4_000, 5_000), 52), column("none yet", null, 0)], 56);

  it("prints each total against the default's, median and p90, beside it", () => {
    expect(table).toContain("| total | **16.0 / 20.0** | **4.0 / 5.0** (0.25× / 0.25×) | – |");
    expect(ratio(spread(1, 1), null)).toBe("");
    expect(ratio(spread(1, 1), spread(0, 1))).toBe("");
  });

  it("names the stages as the docs do and says how many turns the served samples cover", () => {
    expect(table).toContain("| handed to the trainer | 4.0 / 8.0 | 4.0 / 8.0 | 4.0 / 8.0 |");
    expect(table.at(-1)).toBe("| samples served (of 56 turns) | 32 | 52 | 0 |");
  });

  it("docs/benchmarks.md shows the same rows, and ratios on its totals", () => {
    const docs = readFileSync(path.join(import.meta.dirname, "../../docs/benchmarks.md"), "utf8");
    const section = docs.slice(docs.indexOf("### How soon it learns"));
    const rows = section.split("\n").filter((line) => line.startsWith("| ")).slice(0, table.length);
    const firstCell = (line: string) => line.split(" | ")[0];
    expect(rows.map(firstCell)).toEqual(table.map(firstCell));
    expect(rows.find((line) => line.startsWith("| total |"))).toMatch(/\*\* \(\d\.\d\d× \/ \d\.\d\d×\)/);
  });
});
