// The dashboard page's entry: reads the admin token once (then drops it from the address bar), opens the
// live stream, keeps bounded arrays of what it shows and redraws at most once per frame. No framework.
import { createCharts, drawCharts } from "./charts.js";
import { element, formatReward, formatSeconds, formatTime, round } from "./format.js";
import { HeldOutChart } from "./held-out-chart.js";
import { OutcomeChart } from "./outcome-chart.js";
import { TurnTable } from "./turn-table.js";

const base = location.pathname.replace(/\/+$/, "");
const token = readToken();
const api = {
  async getJson(path) {
    const response = await fetch(`${base}/${path}`, { headers: { Authorization: `Bearer ${token}` }, cache: "no-store" });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
    return body;
  },
};

const state = { limits: null, evaluationSetup: null, method: null, totals: null, open: null, engines: [], batches: [], batchTotal: 0, latency: [], latencyTotal: 0, errors: [], errorTotal: 0, weights: [] };
const charts = createCharts();
const heldOut = new HeldOutChart(document.getElementById("chart-held-out"), document.getElementById("held-out-empty"));
const outcome = new OutcomeChart(document.getElementById("outcome-figure"), document.getElementById("chart-outcome"));
let table = null;
let drawPending = false;

function readToken() {
  const params = new URLSearchParams(location.search);
  const fromUrl = params.get("token");
  if (fromUrl) {
    sessionStorage.setItem("openclaw-rl-admin-token", fromUrl);
    history.replaceState(null, "", location.pathname); // keep the token out of the address bar and history
    return fromUrl;
  }
  return sessionStorage.getItem("openclaw-rl-admin-token") ?? "";
}

/** Appends a series slice (items carry a running index) and keeps only the newest `limit`. */
function appendSlice(list, knownTotal, slice, limit) {
  const skip = Math.max(0, knownTotal - slice.start);
  slice.items.slice(skip).forEach((item, offset) => list.push({ ...item, n: slice.start + skip + offset + 1 }));
  if (list.length > limit) list.splice(0, list.length - limit);
  return Math.max(knownTotal, slice.start + slice.items.length);
}

function applySnapshot(snapshot) {
  Object.assign(state, { limits: snapshot.limits, evaluationSetup: snapshot.evaluationSetup, method: snapshot.method, totals: snapshot.totals, open: snapshot.open, engines: snapshot.engines, weights: snapshot.weights });
  state.batches = [];
  state.latency = [];
  state.errors = [];
  state.batchTotal = appendSlice(state.batches, snapshot.batches.start, snapshot.batches, snapshot.limits.batches);
  state.latencyTotal = appendSlice(state.latency, snapshot.latency.start, snapshot.latency, snapshot.limits.latency);
  state.errorTotal = appendSlice(state.errors, snapshot.errors.start, snapshot.errors, snapshot.limits.errors);
  const note = document.getElementById("version-label-note");
  note.textContent = snapshot.versionLabelNote ? `⚠ ${snapshot.versionLabelNote}` : "";
  note.hidden = !snapshot.versionLabelNote;
  document.getElementById("run-id").textContent = snapshot.run.runId;
  if (!table) table = new TurnTable(api, snapshot.limits.pageSize, snapshot.sessionIdleTimeoutS);
  table.reset(snapshot.turns);
  scheduleDraw();
}

function applyDelta(delta) {
  if (!state.limits) return;
  Object.assign(state, { method: delta.method, totals: delta.totals, open: delta.open });
  if (delta.engines) state.engines = delta.engines;
  state.batchTotal = appendSlice(state.batches, state.batchTotal, delta.batches, state.limits.batches);
  state.latencyTotal = appendSlice(state.latency, state.latencyTotal, delta.latency, state.limits.latency);
  state.errorTotal = appendSlice(state.errors, state.errorTotal, delta.errors, state.limits.errors);
  for (const update of delta.weights) {
    const index = state.weights.findIndex((known) => known.id === update.id);
    if (index === -1) state.weights.push(update);
    else state.weights[index] = update;
  }
  if (state.weights.length > state.limits.weights) state.weights.splice(0, state.weights.length - state.limits.weights);
  table.applyChanges(delta.turnRows, delta.turnsTotal);
  scheduleDraw();
}

function scheduleDraw() {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    drawFacts();
    drawCharts(charts, state);
    heldOut.draw(state.totals.evaluation, state.evaluationSetup);
    outcome.draw(state.totals.episodes);
    document.body.dataset.renders = String(Number(document.body.dataset.renders ?? 0) + 1);
    document.body.dataset.firstRenderMs ??= String(Math.round(performance.now())); // since navigation start
  });
}

function drawFacts() {
  const { totals, open } = state;
  document.getElementById("method").textContent = state.method ?? "–";
  document.getElementById("weight-version").textContent = totals.weightVersion ?? "–";
  document.getElementById("hints-figure").hidden = state.method === "binary";
  const engines = state.engines.map((engine) =>
    element("li", `engine state-${engine.state}`, [element("span", "engine-name", engine.name), element("span", "engine-state", engine.state), element("span", "muted", engine.detail)]),
  );
  document.getElementById("engines").replaceChildren(...(engines.length ? engines : [element("li", "muted", "no engine reported yet")]));
  const size = open.batchSize;
  document.getElementById("next-batch-ready").textContent = String(open.ready);
  document.getElementById("next-batch-size").textContent = size === null ? "?" : String(size);
  document.getElementById("next-batch-bar").style.width = size ? `${Math.min(100, (100 * open.ready) / size)}%` : "0%";
  document.getElementById("open-batch").textContent = openBatchText(open, state.method);
  const held = document.getElementById("held-back");
  held.hidden = !(totals.held !== null && size !== null && open.ready >= size);
  held.textContent = held.hidden ? "" : heldText(totals.held);
  const paused = document.getElementById("training-paused");
  paused.hidden = !totals.trainingPause;
  paused.textContent = totals.trainingPause ? `training paused since ${formatTime(totals.trainingPause.since)}: ${totals.trainingPause.message} (the proxy keeps serving) · resume: ${totals.trainingPause.resume}` : "";
  document.getElementById("progress").textContent = progressText(totals.progress);
  const rewards = totals.rewards;
  const facts = [
    ["turns", `${totals.turns} (${totals.mainTurns} main · ${totals.sideTurns} side)`], ["sessions", totals.sessions],
    ["judged", `${totals.judged} = ${totals.samples.made} made a sample + ${totals.withoutSample} without a sample`],
    ["samples", sampleSum(totals.samples)],
    ["open turns", `${totals.openTurns} waiting for their session's next message · ${totals.waitingForJudge} waiting for the judge`],
    ["rewards", `${rewards.count} samples · ${rewards.positive} good · ${rewards.zero} neutral · ${rewards.negative} bad · mean ${rewards.mean === null ? "–" : round(rewards.mean, 3)}`],
    ["batches", `${totals.batches} trained · ${totals.batchesDelivered} delivered (${totals.samples.delivered} samples handed out, re-deliveries included)`],
    ["errors", totals.errors],
  ];
  if (totals.folder) facts.push(["since the records folder was created", `${totals.folder.samplesTrained} samples trained · ${totals.folder.droppedStale} dropped stale`]);
  const episodes = totals.episodes;
  if (episodes && episodes.running + episodes.finished > 0) {
    const rate = (value) => (value === null ? "–" : `${Math.round(100 * value)}%`);
    facts.push(["episodes", `${episodes.running} running · ${episodes.finished} finished (${episodes.failed} failed) · outcome ${rate(episodes.rate)}`]);
    facts.push(["outcome by version", firstAndLatest(episodes.byVersion, 4).map((entry) => (entry === null ? "…" : `v${entry.version} ${rate(entry.rate)} of ${entry.finished}`)).join(" · ")]);
  }
  const trainer = totals.trainer;
  if (trainer && trainer.step === null && totals.batches > 0) facts.push(["trainer", `${trainer.stalled ? "STALLED · " : ""}no per-step metrics reported (slime's Megatron backend reports them; the rehearsal trainer reports none)`]);
  else if (trainer && (trainer.step !== null || trainer.stalled)) {
    const number = (value) => (value === null ? "–" : Math.abs(value) < 1e-3 && value !== 0 ? value.toExponential(2) : value.toFixed(4));
    facts.push(["trainer", `${trainer.stalled ? "STALLED · " : ""}step ${trainer.step ?? "–"} · loss ${number(trainer.loss)} · grad norm ${number(trainer.gradNorm)}`]);
    facts.push(["train/rollout log-prob diff", number(trainer.logprobDiff)]);
    if (trainer.entropy) facts.push(["policy entropy", `${number(trainer.entropy.value)} (from ${trainer.entropy.source})`]);
  }
  const evaluation = totals.evaluation;
  if (evaluation && evaluation.points.length > 0) {
    const percent = (value) => (value === null ? "–" : `${(100 * value).toFixed(1)}%`);
    const interval = (ci) => (ci ? ` [${(100 * ci.low).toFixed(1)}, ${(100 * ci.high).toFixed(1)}]` : "");
    const point = (entry) => [entry.meanScore === null ? null : `score ${percent(entry.meanScore)}${interval(entry.scoreCi)}`, entry.outcomeRate === null ? null : `outcome ${percent(entry.outcomeRate)}${interval(entry.outcomeCi)}`].filter(Boolean).join(" · ");
    const [base, ...later] = evaluation.points;
    facts.push(["held-out evaluation (95%)", [`base v${base.version}: ${point(base)}`, ...later.slice(-4).map((entry) => `v${entry.version}: ${point(entry)}${entry.winRate === null ? "" : ` · wins ${percent(entry.winRate)} vs base`}`)].join(" · ")]);
    if (evaluation.best) facts.push(["best held-out version", `v${evaluation.best.version}: ${point(evaluation.best)}`]);
  }
  if (totals.hybrid) facts.push(...hybridFacts(totals.hybrid));
  if (totals.learning) facts.push(["learning (median / p90)", learningText(totals.learning)]);
  if (totals.checkpoints) facts.push(["checkpoints", totals.checkpoints.kept === 0 ? "none yet" : `${totals.checkpoints.kept} kept · latest iter ${totals.checkpoints.latestIteration}`]);
  document.getElementById("totals").replaceChildren(...facts.flatMap(([name, value]) => [element("dt", "", name), element("dd", "", value)]));
  document.getElementById("stale-drops").textContent = String(totals.samples.dropped.stale);
  const lastBatch = state.batches[state.batches.length - 1];
  document.getElementById("chart-reward").title = lastBatch ? `last batch: mean ${formatReward(round(lastBatch.meanReward, 3))}` : "";
  const recent = state.weights.slice(-6).reverse();
  document.getElementById("weight-list").replaceChildren(
    ...recent.map((update) =>
      update.reset
        ? Object.assign(element("li", "weight-reset", `${update.fromVersion} → 0 · trainer restarted, versions count from 0 again · ${formatTime(update.startedAt)}`), { title: update.reset })
        : element("li", "", `${update.fromVersion} → ${update.toVersion ?? "…"} · ${update.durationMs === null ? "updating" : `${formatSeconds(update.durationMs, "up")} (between polls)`} · ${formatTime(update.startedAt)}`),
    ),
  );
  document.getElementById("errors-panel").hidden = state.errors.length === 0;
  document.getElementById("errors").replaceChildren(
    ...state.errors.slice(-10).reverse().map((entry) => element("li", "error", `${formatTime(entry.at)} ${entry.source} ${entry.code}: ${entry.message}`)),
  );
}

/** method hybrid, in status's words: the share of judged turns per dispatch case, candidates per sample, the trainer's selection. */
function hybridFacts(hybrid) {
  const judged = Object.values(hybrid.cases).reduce((sum, count) => sum + count, 0);
  const share = (count) => (judged > 0 ? `${Math.round((100 * count) / judged)}%` : "–");
  const value = (number) => (number === null || number === undefined ? "–" : number.toFixed(2));
  const trainer = hybrid.trainer ?? {};
  return [
    ["hybrid turns", `${Object.entries(hybrid.cases).map(([name, count]) => `${name} ${share(count)}`).join(" · ")} · ${value(hybrid.samples > 0 ? hybrid.candidates / hybrid.samples : null)} candidates per sample`],
    ["hybrid trainer", `k* ${value(trainer.kStar)} · overlap at k* ${value(trainer.overlapAtKStar)} · OPD subset size ${value(trainer.subsetSize)}`],
  ];
}

/** The first entry (where the run began) and the latest `latest`, a null where some lie between them (status's rows). */
function firstAndLatest(entries, latest) {
  return entries.length <= latest + 1 ? entries : [entries[0], null, ...entries.slice(-latest)];
}

/** Where every sample is, as one sum, in status's words: made (+ from earlier runs) = ready + in training + trained + dropped. */
function sampleSum(samples) {
  const earlier = samples.fromEarlierRuns > 0 ? ` + ${samples.fromEarlierRuns} from earlier runs` : "";
  const invalid = samples.dropped.invalid > 0 ? ` + ${samples.dropped.invalid} dropped invalid` : "";
  return `${samples.made} made${earlier} = ${samples.ready} ready + ${samples.inTraining} in training + ${samples.trained} trained + ${samples.dropped.stale} dropped stale${invalid}`;
}

/** Why a batch's worth waits, as status says it: the sessions over the per-session share, the share, when they train. */
function heldText(held) {
  const over = (held.sessions ?? []).map((unit) => `session ${unit.unit} has ${unit.ready} ready; `).join("");
  const share = held.perSession === null ? "only a share of one session's samples" : `at most ${held.perSession} of one session's${held.activeSessions === null ? "" : ` while ${held.activeSessions} sessions have samples ready`}`;
  const when = held.completesAt ? `at ${formatTime(held.completesAt)}, once the oldest waited` : "once they waited";
  return `held back since ${formatTime(held.since)}: ${over}a batch takes ${share} (training.fair_batch); the held-back samples complete a batch ${when} relax_after_s`;
}

/** The batch being filled, in words: how many judged turns, how many good, neutral and bad, and the hints. */
function openBatchText(open, method) {
  const hints = method && method !== "binary" ? ` · hints: ${open.hintsAccepted} accepted, ${open.hintsRejected} rejected` : "";
  return `since the last batch: ${open.judged} turns judged: ${open.positive} good · ${open.zero} neutral · ${open.negative} bad${hints}`;
}

/** Where the run stands: episodes done of planned and the ETA (when the work is finite), the weight version, batches trained. */
function progressText(progress) {
  const common = `weight version ${progress.weightVersion ?? "–"} · ${progress.batchesTrained} batches trained`;
  if (!progress.episodes) return `${common} · no end planned (it trains while traffic comes)`;
  return `episodes ${progress.episodes.done} of ${progress.episodes.planned} done · ${common} · ${progress.finished ? "all planned episodes done" : progress.eta}`;
}

function connect() {
  const source = new EventSource(`${base}/api/stream?token=${encodeURIComponent(token)}`);
  const status = document.getElementById("connection");
  source.addEventListener("snapshot", (event) => {
    applySnapshot(JSON.parse(event.data));
    document.body.dataset.connection = "live";
    status.textContent = "live";
  });
  source.addEventListener("delta", (event) => applyDelta(JSON.parse(event.data)));
  source.addEventListener("error", () => {
    document.body.dataset.connection = "reconnecting";
    status.textContent = "reconnecting…";
    // EventSource hides the status code: ask once whether the token is the problem, and stop if it is
    api.getJson("api/turns?limit=1").catch((error) => {
      if (!String(error.message).includes("token")) return;
      source.close();
      document.body.dataset.connection = "unauthorized";
      status.textContent = "wrong or missing admin token: open the link printed by `openclaw-rl start`";
    });
  });
}

connect();

/**
 * How soon it learns, as status says it: a table of each wait from the one before (a turn's answer, its close,
 * judging, hand-out, training, serving) and the whole, median and p90 in seconds, then the samples and last update.
 */
function learningText(learning) {
  const served = learning.lastServedUpdateAt === null ? "no update served yet" : `last update served ${formatTime(learning.lastServedUpdateAt)}`;
  if (learning.samples === 0) return `no trained sample served yet${learning.awaitingServe > 0 ? ` (${learning.awaitingServe} trained, waiting for an update)` : ""} · ${served}`;
  const words = { closed: "closed", judged: "judged", handed: "to trainer", trained: "trained", served: "served", total: "answer→served" };
  const header = element("tr", "", ["stage", "median", "p90"].map((name) => element("th", name === "stage" ? "" : "num", name)));
  const rows = Object.entries(words).map(([stage, word]) => {
    const spread = learning.stages[stage];
    return element("tr", "", [element("td", "", word), element("td", "num", spread ? formatSeconds(spread.median) : "–"), element("td", "num", spread ? formatSeconds(spread.p90) : "–")]);
  });
  const awaiting = learning.awaitingServe > 0 ? ` · ${learning.awaitingServe} trained, not served yet` : "";
  return [element("table", "learning", [element("thead", "", [header]), element("tbody", "", rows)]), element("div", "muted", `over the last ${learning.samples} trained samples, each wait from the one before · ${served}${awaiting}`)];
}
