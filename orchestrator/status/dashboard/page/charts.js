// The dashboard's charts: thin wrappers around uPlot (served from node_modules as window.uPlot), one per
// series family, each redrawn from the page's bounded arrays at most once per animation frame.

const palette = { mean: "#7dd3fc", positive: "#4ade80", zero: "#a1a1aa", negative: "#f87171", accepted: "#4ade80", rejected: "#f87171", eval: "#facc15", ttft: "#c084fc", total: "#7dd3fc", weights: "#fb923c" };
const axisStyle = { stroke: "#a1a1aa", grid: { stroke: "#27272a" }, ticks: { stroke: "#3f3f46" } };

function line(label, stroke, extra = {}) {
  return { label, stroke, width: 2, points: { show: true, size: 4 }, spanGaps: false, ...extra };
}

/** A reward axis from −1 to 1 at least, widened to the rewards drawn (an episode step's reward reaches ±2). */
const rewardScale = { range: (_chart, min, max) => [Math.min(-1, min ?? -1), Math.max(1, max ?? 1)] };

/** A time axis that does not zoom out to years when it holds a single point (or none). */
const timeScale = { time: true, range: (_chart, min, max) => (min === null || max === null ? [Date.now() / 1000 - 60, Date.now() / 1000] : min === max ? [min - 60, max + 60] : [min, max]) };

function makeChart(target, series, scales, axes) {
  const width = Math.max(280, target.clientWidth || 480);
  const options = { width, height: 200, series: [{}, ...series], scales, axes, legend: { live: true }, cursor: { drag: { x: false, y: false } } };
  const chart = new window.uPlot(options, [[], ...series.map(() => [])], target);
  target.uplot = chart; // the chart object, for tests that read its scales and series rather than its pixels
  return { chart, target, columns: series.length };
}

export function createCharts() {
  const byBatch = { x: { time: false } };
  const batchAxis = { ...axisStyle, label: "batch", incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] };
  const charts = {
    reward: makeChart(
      document.getElementById("chart-reward"),
      [line("mean reward", palette.mean, { scale: "reward" }), line("above 0", palette.positive, { scale: "count", width: 1 }), line("0", palette.zero, { scale: "count", width: 1 }), line("below 0", palette.negative, { scale: "count", width: 1 })],
      { ...byBatch, reward: rewardScale, count: { range: (_chart, _min, max) => [0, Math.max(1, max)] } },
      [batchAxis, { ...axisStyle, scale: "reward" }, { ...axisStyle, scale: "count", side: 1, grid: { show: false } }],
    ),
    hints: makeChart(
      document.getElementById("chart-hints"),
      [line("accepted", palette.accepted), line("rejected", palette.rejected)],
      { ...byBatch, y: { range: (_chart, _min, max) => [0, Math.max(1, max)] } },
      [batchAxis, axisStyle],
    ),
    evaluation: makeChart(document.getElementById("chart-eval"), [line("judged score (training signal)", palette.eval)], { ...byBatch, y: rewardScale }, [batchAxis, axisStyle]),
    latency: makeChart(
      document.getElementById("chart-latency"),
      [line("ttft ms", palette.ttft, { points: { show: false }, width: 1 }), line("total ms", palette.total, { points: { show: false }, width: 1 })],
      { x: timeScale, y: { range: (_chart, _min, max) => [0, Math.max(10, max)] } },
      [axisStyle, axisStyle],
    ),
    weights: makeChart(
      document.getElementById("chart-weights"),
      [line("update s", palette.weights, { paths: () => null, points: { show: true, size: 7 } })],
      { x: timeScale, y: { range: (_chart, _min, max) => [0, Math.max(1, max)] } },
      [axisStyle, axisStyle],
    ),
  };
  window.addEventListener("resize", () => {
    for (const entry of Object.values(charts)) entry.chart.setSize({ width: Math.max(280, entry.target.clientWidth), height: 200 });
  });
  return charts;
}

function setData(entry, columns) {
  entry.chart.setData(columns);
  entry.target.dataset.points = String(columns[0].length);
}

/** Redraws every chart from the page state (bounded arrays). */
export function drawCharts(charts, state) {
  const batches = state.batches;
  const rollout = batches.map((batch) => batch.n); // running batch number: always ascending, even if rollout ids restart
  setData(charts.reward, [rollout, batches.map((b) => b.meanReward), batches.map((b) => b.positive), batches.map((b) => b.zero), batches.map((b) => b.negative)]);
  charts.reward.target.dataset.lastMean = batches.length ? String(batches[batches.length - 1].meanReward) : "";
  setData(charts.hints, [rollout, batches.map((b) => b.hintsAccepted), batches.map((b) => b.hintsRejected)]);
  setData(charts.evaluation, [rollout, batches.map((b) => b.evalScore)]);
  const latency = state.latency;
  setData(charts.latency, [latency.map((point) => point.at / 1000), latency.map((point) => point.ttftMs), latency.map((point) => point.totalMs)]);
  const finished = state.weights.filter((update) => update.durationMs !== null && !update.reset); // a reset is no update
  setData(charts.weights, [finished.map((update) => update.startedAt / 1000), finished.map((update) => update.durationMs / 1000)]);
}
