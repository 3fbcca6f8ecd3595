// The figures the three screens of a run show (`status` text, `status --json`, the dashboard's feed), read off each
// under one set of names, so a test can say that every number two screens both show is the same number.
import type { StatusSnapshot } from "../../contracts/status.ts";
import type { DashboardSnapshot } from "../../orchestrator/status/dashboard/dashboard-wire.ts";

export interface Figures {
  runId: string | null;
  sessions: number;
  turns: { main: number; side: number };
  ready: number;
  batchSize: number | null;
  /** The sum's parts: made + fromEarlierRuns = ready + inTraining + samplesTrained + staleDrops + invalidDrops. */
  made: number;
  fromEarlierRuns: number;
  inTraining: number;
  samplesTrained: number;
  staleDrops: number;
  invalidDrops: number;
  samplesDelivered: number;
  batchesTrained: number;
  batchesDelivered: number;
  rewards: { count: number; positive: number; zero: number; negative: number };
  judged: number;
  withoutSample: number;
  waitingForJudge: number;
  openTurns: number;
  weightVersion: string | null;
  episodes: { running: number; finished: number; failed: number };
  progress: { done: number | null; planned: number | null };
  folder: { samplesTrained: number; droppedStale: number } | null;
}

export function fromJson(status: StatusSnapshot): Figures {
  const { samples, rewards, judging, episodes, progress } = status;
  return {
    runId: status.run_id,
    sessions: status.sessions,
    turns: status.turns,
    ready: samples.ready,
    batchSize: samples.batch_size,
    made: samples.made,
    fromEarlierRuns: samples.from_earlier_runs,
    inTraining: samples.in_training,
    samplesTrained: samples.trained,
    staleDrops: samples.dropped.stale,
    invalidDrops: samples.dropped.invalid,
    samplesDelivered: samples.delivered,
    batchesTrained: status.batches,
    batchesDelivered: status.batches_delivered,
    rewards: { count: rewards.count, positive: rewards.positive, zero: rewards.zero, negative: rewards.negative },
    judged: judging.judged,
    withoutSample: judging.without_sample,
    waitingForJudge: judging.waiting,
    openTurns: judging.open,
    weightVersion: status.weight_version,
    episodes: { running: episodes.running, finished: episodes.finished, failed: episodes.failed },
    progress: { done: progress.episodes_done, planned: progress.episodes_planned },
    folder: status.records_folder && { samplesTrained: status.records_folder.samples_trained, droppedStale: status.records_folder.dropped_stale },
  };
}

export function fromFeed(dashboard: DashboardSnapshot): Figures {
  const { totals, open } = dashboard;
  return {
    runId: dashboard.run.runId,
    sessions: totals.sessions,
    turns: { main: totals.mainTurns, side: totals.sideTurns },
    ready: open.ready,
    batchSize: open.batchSize,
    made: totals.samples.made,
    fromEarlierRuns: totals.samples.fromEarlierRuns,
    inTraining: totals.samples.inTraining,
    samplesTrained: totals.samples.trained,
    staleDrops: totals.samples.dropped.stale,
    invalidDrops: totals.samples.dropped.invalid,
    samplesDelivered: totals.samples.delivered,
    batchesTrained: totals.batches,
    batchesDelivered: totals.batchesDelivered,
    rewards: { count: totals.rewards.count, positive: totals.rewards.positive, zero: totals.rewards.zero, negative: totals.rewards.negative },
    judged: totals.judged,
    withoutSample: totals.withoutSample,
    waitingForJudge: totals.waitingForJudge,
    openTurns: totals.openTurns,
    weightVersion: totals.weightVersion,
    episodes: { running: totals.episodes.running, finished: totals.episodes.finished, failed: totals.episodes.failed },
    progress: { done: totals.progress.episodes?.done ?? null, planned: totals.progress.episodes?.planned ?? null },
    folder: totals.folder,
  };
}

/** Reads the figures off `status`'s text; a line it needs and cannot find fails the read, naming the line. */
/** The sums every screen's figures must hold: judged = made + without a sample; made + from earlier runs = where each sample is. */
export function sums(figures: Figures): { judged: [number, number]; samples: [number, number] } {
  return {
    judged: [figures.judged, figures.made + figures.withoutSample],
    samples: [figures.made + figures.fromEarlierRuns, figures.ready + figures.inTraining + figures.samplesTrained + figures.staleDrops + figures.invalidDrops],
  };
}

export function fromText(text: string): Figures {
  const match = (pattern: RegExp, what: string): RegExpMatchArray => {
    const found = text.match(pattern);
    if (!found) throw new Error(`status text has no ${what} line:\n${text}`);
    return found;
  };
  const number = (value: string | undefined) => Number(value);
  const title = match(/· run (\S+) ·/, "run id");
  const sessions = match(/^sessions +(\d+) · turns: main (\d+), side (\d+)$/m, "sessions");
  const batch = match(/^next batch .*?(?:(\d+) of (\d+) samples ready|(\d+) samples ready \(a batch takes (\d+)\))$/m, "next batch");
  const samples = match(/^samples +(\d+) made(?: \+ (\d+) from earlier runs)? = (\d+) ready \+ (\d+) in training \+ (\d+) trained \+ (\d+) dropped stale(?: \+ (\d+) dropped invalid)?$/m, "samples");
  const batches = match(/^batches +(\d+) trained · (\d+) delivered \((\d+) samples handed out/m, "batches");
  const rewards = match(/^rewards +(\d+) samples · mean \S+ · (\d+) good \(above 0\) · (\d+) neutral \(0\) · (\d+) bad \(below 0\)$/m, "rewards");
  const judging = match(/^judging +(\d+) judged = (\d+) made a sample \+ (\d+) without a sample(?: \([^)]*\))? · (\d+) waiting for the judge$/m, "judging");
  if (samples[3] !== (batch[1] ?? batch[3])) throw new Error(`status text names two numbers of samples ready (${samples[3]}, ${batch[1] ?? batch[3]}):\n${text}`);
  if (judging[2] !== samples[1]) throw new Error(`status text names two numbers of samples made (${judging[2]}, ${samples[1]}):\n${text}`);
  const open = text.match(/^ +(\d+) open: answered, waiting for the session's next message/m);
  const weights = match(/^weights +version (\S+)/m, "weights");
  const episodes = text.match(/^episodes +(\d+) running · (\d+) finished \((\d+) failed\)/m);
  const progress = match(/^progress +(?:episodes (\d+) of (\d+) done · )?weight version/m, "progress");
  const folder = text.match(/since the records folder was created: (\d+) trained · (\d+) dropped stale/);
  return {
    runId: title[1]!,
    sessions: number(sessions[1]),
    turns: { main: number(sessions[2]), side: number(sessions[3]) },
    ready: number(batch[1] ?? batch[3]),
    batchSize: number(batch[2] ?? batch[4]),
    made: number(samples[1]),
    fromEarlierRuns: number(samples[2] ?? "0"),
    inTraining: number(samples[4]),
    samplesTrained: number(samples[5]),
    staleDrops: number(samples[6]),
    invalidDrops: number(samples[7] ?? "0"),
    samplesDelivered: number(batches[3]),
    batchesTrained: number(batches[1]),
    batchesDelivered: number(batches[2]),
    rewards: { count: number(rewards[1]), positive: number(rewards[2]), zero: number(rewards[3]), negative: number(rewards[4]) },
    judged: number(judging[1]),
    withoutSample: number(judging[3]),
    waitingForJudge: number(judging[4]),
    openTurns: open ? number(open[1]) : 0,
    weightVersion: weights[1] === "–" ? null : weights[1]!,
    episodes: episodes ? { running: number(episodes[1]), finished: number(episodes[2]), failed: number(episodes[3]) } : { running: 0, finished: 0, failed: 0 },
    progress: progress[2] === undefined ? { done: null, planned: null } : { done: number(progress[1]), planned: number(progress[2]) },
    folder: folder ? { samplesTrained: number(folder[1]), droppedStale: number(folder[2]) } : null,
  };
}
