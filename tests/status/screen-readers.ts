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
  inTraining: number;
  samplesTrained: number;
  staleDrops: number;
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
    inTraining: samples.delivered,
    samplesTrained: samples.acknowledged,
    staleDrops: samples.dropped_stale,
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
    inTraining: totals.samplesInTraining,
    samplesTrained: totals.samplesTrained,
    staleDrops: totals.staleDrops,
    batchesTrained: totals.batches,
    batchesDelivered: totals.batchesDelivered,
    rewards: { count: totals.rewards.count, positive: totals.rewards.positive, zero: totals.rewards.zero, negative: totals.rewards.negative },
    judged: totals.judged,
    withoutSample: totals.skipped,
    waitingForJudge: totals.waitingForJudge,
    openTurns: totals.openTurns,
    weightVersion: totals.weightVersion,
    episodes: { running: totals.episodes.running, finished: totals.episodes.finished, failed: totals.episodes.failed },
    progress: { done: totals.progress.episodes?.done ?? null, planned: totals.progress.episodes?.planned ?? null },
    folder: totals.folder,
  };
}

/** Reads the figures off `status`'s text; a line it needs and cannot find fails the read, naming the line. */
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
  const samples = match(/^samples +trained (\d+) · in training (\d+) · dropped stale (\d+)$/m, "samples");
  const batches = match(/^batches +(\d+) trained · (\d+) delivered/m, "batches");
  const rewards = match(/^rewards +(\d+) samples · mean \S+ · (\d+) good \(above 0\) · (\d+) neutral \(0\) · (\d+) bad \(below 0\)$/m, "rewards");
  const judging = match(/^judging +(\d+) judged · (\d+) without a sample(?: \([^)]*\))? · (\d+) waiting for the judge$/m, "judging");
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
    inTraining: number(samples[2]),
    samplesTrained: number(samples[1]),
    staleDrops: number(samples[3]),
    batchesTrained: number(batches[1]),
    batchesDelivered: number(batches[2]),
    rewards: { count: number(rewards[1]), positive: number(rewards[2]), zero: number(rewards[3]), negative: number(rewards[4]) },
    judged: number(judging[1]),
    withoutSample: number(judging[2]),
    waitingForJudge: number(judging[3]),
    openTurns: open ? number(open[1]) : 0,
    weightVersion: weights[1] === "–" ? null : weights[1]!,
    episodes: episodes ? { running: number(episodes[1]), finished: number(episodes[2]), failed: number(episodes[3]) } : { running: 0, finished: 0, failed: 0 },
    progress: progress[2] === undefined ? { done: null, planned: null } : { done: number(progress[1]), planned: number(progress[2]) },
    folder: folder ? { samplesTrained: number(folder[1]), droppedStale: number(folder[2]) } : null,
  };
}
