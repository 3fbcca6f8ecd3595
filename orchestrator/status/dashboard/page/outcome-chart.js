// The dashboard's episode outcome chart: the outcome rate (mean score) of the training episodes per weight version of
// their last step, with how many finished, from the first version the run tally keeps to the latest. Hidden until an
// episode finished; the held-out outcome rate is the held-out chart's.

const colors = { rate: "#f472b6", finished: "#a1a1aa" };
const axisStyle = { stroke: "#a1a1aa", grid: { stroke: "#27272a" }, ticks: { stroke: "#3f3f46" } };

/** The chart's columns: x = position of the version (labelled with it), the outcome rate, the episodes finished. */
export function outcomeColumns(byVersion) {
  return [byVersion.map((_entry, index) => index), byVersion.map((entry) => entry.rate), byVersion.map((entry) => entry.finished)];
}

export class OutcomeChart {
  constructor(figure, target) {
    this.figure = figure;
    this.target = target;
    this.chart = null;
    this.labels = [];
    window.addEventListener("resize", () => this.chart?.setSize({ width: this.width(), height: 200 }));
  }

  width() {
    return Math.max(280, this.target.clientWidth || 480);
  }

  /** Draws the rate per version; hides the figure while no episode finished. */
  draw(episodes) {
    const byVersion = episodes?.byVersion ?? [];
    this.figure.hidden = byVersion.length === 0;
    this.target.dataset.points = String(byVersion.length);
    if (byVersion.length === 0) return;
    this.chart ??= this.create();
    this.labels = byVersion.map((entry) => `v${entry.version}`);
    this.chart.setData(outcomeColumns(byVersion));
  }

  create() {
    const percent = (value) => (value === null || value === undefined ? "–" : `${Math.round(100 * value)}%`);
    const options = {
      width: this.width(),
      height: 200,
      series: [
        { label: "weight version", value: (_chart, raw) => (raw === null ? "–" : (this.labels[raw] ?? "–")) },
        { label: "outcome rate", stroke: colors.rate, width: 2, scale: "rate", value: (_chart, raw) => percent(raw), points: { show: true, size: 5 } },
        { label: "episodes finished", stroke: colors.finished, width: 1, scale: "count", paths: () => null, points: { show: true, size: 4 } },
      ],
      scales: { x: { time: false, range: (_chart, min, max) => [(min ?? 0) - 0.5, (max ?? 0) + 0.5] }, rate: { range: [0, 1] }, count: { range: (_chart, _min, max) => [0, Math.max(1, max ?? 1)] } },
      axes: [
        { ...axisStyle, label: "weight version of the last step", values: (_chart, splits) => splits.map((split) => (Number.isInteger(split) ? (this.labels[split] ?? "") : "")) },
        { ...axisStyle, scale: "rate", values: (_chart, splits) => splits.map((split) => `${Math.round(100 * split)}%`) },
        { ...axisStyle, scale: "count", side: 1, grid: { show: false } },
      ],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
    };
    const chart = new window.uPlot(options, [[], [], []], this.target);
    this.target.uplot = chart; // the chart object, for tests that read its series rather than its pixels
    return chart;
  }
}
