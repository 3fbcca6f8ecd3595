// The dashboard's held-out evaluation chart: mean score per evaluated weight version with its 95% interval as a band,
// the base's interval as a dashed reference, the best version marked, and held-out tasks' outcome rate when the points
// carry it. Its own chart, apart from the per-batch training charts; the numbers are the run tally's (totals.evaluation).

const colors = { score: "#34d399", scoreBand: "rgba(52, 211, 153, 0.18)", base: "#a1a1aa", baseBand: "rgba(161, 161, 170, 0.10)", best: "#fde047", outcome: "#f472b6", outcomeBand: "rgba(244, 114, 182, 0.15)" };
const axisStyle = { stroke: "#a1a1aa", grid: { stroke: "#27272a" }, ticks: { stroke: "#3f3f46" } };
const percent = (value) => (value === null || value === undefined ? "–" : `${(100 * value).toFixed(1)}%`);

/** The chart's columns (x = position of the evaluated version, labelled with it), one per series in `seriesOf`'s order. */
export function heldOutColumns(evaluation, withOutcome) {
  const points = evaluation.points;
  const base = baseOf(points);
  const bestIndex = evaluation.best === null ? -1 : points.findIndex((point) => point.version === evaluation.best.version && point.at === evaluation.best.at);
  const columns = [
    points.map((_point, index) => index),
    points.map((point) => point.meanScore),
    points.map((point) => point.scoreCi?.low ?? null),
    points.map((point) => point.scoreCi?.high ?? null),
    points.map(() => base?.scoreCi?.low ?? null),
    points.map(() => base?.scoreCi?.high ?? null),
    points.map((point, index) => (index === bestIndex ? point.meanScore : null)),
  ];
  if (withOutcome) columns.push(points.map((point) => point.outcomeRate), points.map((point) => point.outcomeCi?.low ?? null), points.map((point) => point.outcomeCi?.high ?? null));
  return columns;
}

/** The base weights' point, first when there is one (points without run or base marks: the first, as status reads them); null without. */
function baseOf(points) {
  const first = points[0];
  return first && (first.base || points.every((point) => !point.base && point.run === null)) ? first : null;
}

function seriesOf(withOutcome) {
  const value = (_chart, raw) => percent(raw);
  const thin = (label, stroke, extra = {}) => ({ label, stroke, width: 1, value, points: { show: false }, ...extra });
  const series = [
    { label: "held-out score (mean)", stroke: colors.score, width: 2, value, points: { show: true, size: 6 } },
    thin("score 95% low", colors.score),
    thin("score 95% high", colors.score),
    thin("base 95% low", colors.base, { dash: [6, 4] }),
    thin("base 95% high", colors.base, { dash: [6, 4] }),
    { label: "best version", stroke: colors.best, fill: colors.best, width: 0, value, paths: () => null, points: { show: true, size: 13, stroke: colors.best, fill: colors.best } },
  ];
  if (withOutcome) series.push({ label: "held-out outcome rate", stroke: colors.outcome, width: 2, value, points: { show: true, size: 6 } }, thin("outcome 95% low", colors.outcome), thin("outcome 95% high", colors.outcome));
  return series;
}

function bandsOf(withOutcome) {
  const bands = [{ series: [3, 2], fill: colors.scoreBand }, { series: [5, 4], fill: colors.baseBand }];
  if (withOutcome) bands.push({ series: [9, 8], fill: colors.outcomeBand });
  return bands;
}

export class HeldOutChart {
  constructor(target, empty) {
    this.target = target;
    this.empty = empty;
    this.chart = null;
    this.withOutcome = false;
    this.labels = [];
    window.addEventListener("resize", () => this.chart?.setSize({ width: this.width(), height: 220 }));
  }

  width() {
    return Math.max(280, this.target.clientWidth || 480);
  }

  /** Draws the points, or says why there are none and how to start (the same words as status). */
  draw(evaluation, setup) {
    const points = evaluation?.points ?? [];
    this.target.dataset.points = String(points.length);
    this.empty.hidden = points.length > 0;
    this.target.hidden = points.length === 0;
    if (points.length === 0) {
      this.empty.textContent = `No held-out evaluation yet: ${setup?.advice ?? "–"}`;
      return;
    }
    const withOutcome = points.some((point) => point.outcomeRate !== null);
    if (this.chart === null || withOutcome !== this.withOutcome) this.create(withOutcome);
    const base = baseOf(points);
    this.labels = points.map((point) => `${point.versionAtEnd !== point.version ? `v${point.version}→${point.versionAtEnd}` : `v${point.version}`}${point === base ? " (base)" : ""}`);
    this.chart.setData(heldOutColumns(evaluation, withOutcome));
    this.target.dataset.best = evaluation.best === null ? "" : evaluation.best.version;
  }

  create(withOutcome) {
    this.chart?.destroy();
    this.withOutcome = withOutcome;
    const versionAxis = { ...axisStyle, label: "weight version (held-out set)", incrs: [1, 2, 5, 10, 20, 50, 100], values: (_chart, splits) => splits.map((split) => (Number.isInteger(split) ? (this.labels[split] ?? "") : "")) };
    const options = {
      width: this.width(),
      height: 220,
      series: [{ label: "evaluated", value: (_chart, raw) => (raw === null ? "–" : (this.labels[raw] ?? "–")) }, ...seriesOf(withOutcome)],
      bands: bandsOf(withOutcome),
      scales: { x: { time: false, range: (_chart, min, max) => [(min ?? 0) - 0.5, (max ?? 0) + 0.5] }, y: { range: (_chart, min, max) => [Math.min(0, min ?? 0), Math.max(1, max ?? 1)] } },
      axes: [versionAxis, { ...axisStyle, label: "held-out (95% CI)", values: (_chart, splits) => splits.map((split) => `${Math.round(100 * split)}%`) }],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
    };
    this.chart = new window.uPlot(options, [[], ...seriesOf(withOutcome).map(() => [])], this.target);
    this.target.uplot = this.chart; // the chart object, for tests that read its series rather than its pixels
  }
}
