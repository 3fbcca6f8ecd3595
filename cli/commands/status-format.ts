// Human-readable status for the terminal: the run and where it stands, engines, turns, a k / N progress bar toward
// the next batch, rewards, weights, stale drops and recent errors, in words.
import type { StatusSnapshot } from "../../contracts/status.ts";
import { evaluationLines } from "./status-evaluation.ts";
import { learningLatencyLines } from "./status-latency.ts";
import { describeEta } from "../../orchestrator/status/run-progress.ts";

/** relative: "5s ago" (a screen read now); absolute: clock times and no uptime, so a line changes only with the run. */
export type StatusClock = "relative" | "absolute";

/** runDir: the run folder status read (printed in the commands it suggests), null when it was given only --url. */
export function formatStatus(status: StatusSnapshot, columns = 80, clock: StatusClock = "relative", runDir: string | null = null): string {
  const ago = (at: number) => (clock === "relative" ? `${duration(Date.now() - at)} ago` : `at ${new Date(at).toTimeString().slice(0, 8)}`);
  const lines: string[] = [];
  const title = `openclaw-rl ${status.name ?? ""} · run ${status.run_id ?? "?"} · ${status.method} · engine ${status.engine} · model ${status.model}${status.stand_in ? " (STAND-IN)" : ""}`;
  lines.push(title.replace(/\s+/g, " "));
  lines.push(`  ${status.ready ? "ready" : `NOT READY: ${status.reason}`}${clock === "relative" ? ` · up ${duration(status.uptime_s * 1000)}` : ""} · counts are this run's`);
  if (status.training.paused) lines.push(`  TRAINING PAUSED: ${status.training.message} (paused ${ago(status.training.since ?? Date.now())}; the proxy keeps serving) · resume: ${status.training.resume}`);
  lines.push(progressLine(status.progress));
  lines.push("engines");
  for (const engine of status.engines) lines.push(`  ${mark(engine.state)} ${engine.name.padEnd(18)} ${engine.state.padEnd(9)} ${truncate(engine.detail, columns - 34)}`);
  if (status.engines.length === 0) lines.push("  (none supervised)");
  lines.push(`sessions    ${status.sessions} · turns: main ${status.turns.main}, side ${status.turns.side}`);
  for (const client of status.clients.filter((entry) => entry.asked_otherwise > 0 || entry.off_policy > 0)) lines.push(clientSamplingLine(client));
  const { ready, batch_size: size } = status.samples;
  lines.push(`next batch  ${progressBar(ready, size, Math.max(10, Math.min(40, columns - 30)))} ${ready > size ? `${ready} samples ready (a batch takes ${size})` : `${ready} of ${size} samples ready`}`);
  const held = status.samples.held_back;
  if (held && ready >= size) lines.push(heldLine(held, clock, ago));
  lines.push(`samples     ${sampleSum(status.samples)}`);
  if (status.records_folder) lines.push(`            since the records folder was created: ${status.records_folder.samples_trained} trained · ${status.records_folder.dropped_stale} dropped stale${restartedFromBase(status)}`);
  lines.push(`batches     ${status.batches} trained · ${status.batches_delivered} delivered (${status.samples.delivered} samples handed out, re-deliveries included)${status.last_batch_at ? ` · last delivered ${ago(status.last_batch_at)}` : ""}`);
  const rewards = status.rewards;
  lines.push(...evaluationLines(status.evaluation, runDir, { run: status.run_id, engine: status.engine }));
  lines.push(`rewards     ${rewards.count} samples · mean ${rewards.mean === null ? "–" : rewards.mean.toFixed(3)} · ${rewards.positive} good (above 0) · ${rewards.zero} neutral (0) · ${rewards.negative} bad (below 0)`);
  const judging = status.judging;
  const reasons = Object.entries(judging.skipped)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([reason, count]) => `${reason} ${count}`);
  lines.push(`judging     ${judging.judged} judged = ${status.samples.made} made a sample + ${judging.without_sample} without a sample${reasons.length > 0 ? ` (${reasons.join(", ")})` : ""} · ${judging.waiting} waiting for the judge`);
  if (judging.open > 0) lines.push(`            ${judging.open} open: answered, waiting for the session's next message (closed unjudged once the session idles)`);
  const episodes = status.episodes;
  if (episodes.running + episodes.finished > 0) {
    const rate = (value: number | null) => (value === null ? "–" : `${(100 * value).toFixed(0)}%`);
    lines.push(`episodes    ${episodes.running} running · ${episodes.finished} finished (${episodes.failed} failed) · outcome ${rate(episodes.outcome_rate)}`);
    const versions = Object.entries(episodes.by_version);
    if (versions.length > 0) lines.push(`            by weight version: ${firstAndLatest(versions, 4).map((entry) => (entry === null ? "…" : `v${entry[0]} ${rate(entry[1].outcome_rate)} of ${entry[1].finished}`)).join(" · ")}`);
    const groups = Object.entries(episodes.by_group).slice(-3);
    for (const [group, entry] of groups) lines.push(`            ${truncate(group, columns - 40)}: ${rate(entry.outcome_rate)} of ${entry.finished}`);
  }
  const update = status.last_weights_update;
  const reset = status.last_version_reset;
  const resetShown = reset !== null && reset.at >= (update?.at ?? 0); // once updated since, the update says more
  lines.push(
    `weights     version ${status.weight_version ?? "–"}${status.weights_updating ? " (updating…)" : ""}` +
      (resetShown ? ` · counted from 0 again ${ago(reset.at)} (was ${reset.from_version}: the trainer restarted)` : update ? ` · last update ${ago(update.at)} (${updateWords(update, status)})` : ""),
  );
  if (!status.version_labels.exact) lines.push(`            ⚠ ${status.version_labels.note}`);
  lines.push(...learningLatencyLines(status.learning_latency, ago));
  lines.push(...trainerLines(status.trainer, status.batches, ago));
  if (status.hybrid) lines.push(...hybridLines(status.hybrid));
  lines.push(...checkpointLines(status.checkpoints));
  lines.push(`proxy       ${status.endpoints.proxy ?? "–"}`);
  if (status.endpoints.dashboard) lines.push(`dashboard   ${status.endpoints.dashboard}`);
  if (status.errors.length > 0) {
    lines.push("recent errors");
    for (const error of status.errors.slice(-5)) {
      lines.push(`  ${ago(error.at)} ${error.source}: ${truncate(error.message, columns - 20)}`);
      if (error.hint) lines.push(`    hint: ${truncate(error.hint, columns - 10)}`);
    }
  }
  return lines.join("\n") + "\n";
}

/**
 * Why a batch's worth ready makes no batch: the sessions over the per-session share with their ready counts, the share,
 * and when the held-back samples complete a batch (the rule's one home: docs/bridge.md).
 */
function heldLine(held: NonNullable<StatusSnapshot["samples"]["held_back"]>, clock: StatusClock, ago: (at: number) => string): string {
  const over = held.sessions.map((unit) => `session ${unit.session} has ${unit.ready} ready`).join(", ");
  const active = held.active_sessions === null ? "" : ` while ${held.active_sessions} sessions have samples ready`;
  const share = `a batch takes at most ${held.per_session} of one session's${active} (training.fair_batch.max_session_share ${held.max_session_share})`;
  const at = held.completes_at;
  const when = at === null ? "once they waited" : clock === "relative" ? `in ${duration(Math.max(0, at - Date.now()))}, once the oldest waited` : `at ${new Date(at).toTimeString().slice(0, 8)}, once the oldest waited`;
  return `            held back since ${ago(held.since)}: ${over === "" ? "" : `${over}; `}${share}; the held-back samples complete a batch ${when} training.fair_batch.relax_after_s ${held.relax_after_s} s`;
}

/** The first entry (where the run began) and the latest `latest`, a null where some lie between them. */
export function firstAndLatest<T>(entries: readonly T[], latest: number): Array<T | null> {
  if (entries.length <= latest + 1) return [...entries];
  return [entries[0]!, null, ...entries.slice(-latest)];
}

/** Where every sample is, as one sum: made (+ from earlier runs) = ready + in training + trained + dropped (invalid only when some were). */
function sampleSum(samples: StatusSnapshot["samples"]): string {
  const earlier = samples.from_earlier_runs > 0 ? ` + ${samples.from_earlier_runs} from earlier runs` : "";
  const invalid = samples.dropped.invalid > 0 ? ` + ${samples.dropped.invalid} dropped invalid` : "";
  return `${samples.made} made${earlier} = ${samples.ready} ready + ${samples.in_training} in training + ${samples.trained} trained + ${samples.dropped.stale} dropped stale${invalid}`;
}

/** Where the run stands: episodes done of planned and the ETA where the work is finite, the weight version, batches. */
function progressLine(progress: StatusSnapshot["progress"]): string {
  const parts = [`weight version ${progress.weight_version ?? "–"}`, `${progress.batches_trained} batches trained`];
  if (progress.episodes_planned === null) return `progress    ${parts.join(" · ")} · no end planned (it trains while traffic comes)`;
  const eta = progress.finished ? "all planned episodes done" : describeEta(progress.eta_ms);
  return `progress    episodes ${progress.episodes_done ?? 0} of ${progress.episodes_planned} done · ${parts.join(" · ")} · ${eta}`;
}

function trainerLines(trainer: StatusSnapshot["trainer"], batchesTrained: number, ago: (at: number) => string): string[] {
  const stalled = trainer.stalled_since !== null ? [`            ✗ STALLED since ${ago(trainer.stalled_since)} (TRAINER_STALLED: no step, batch taken or acknowledged)`] : [];
  if (trainer.step === null) {
    const none = batchesTrained > 0 ? `${batchesTrained} batches trained; no per-step metrics reported (slime's Megatron backend reports them; the rehearsal trainer reports none)` : "no batch trained yet";
    return [`trainer     ${none}${trainer.last_progress_at ? ` · last progress ${ago(trainer.last_progress_at)}` : ""}`, ...stalled];
  }
  const value = (number: number | null, digits = 4) => (number === null ? "–" : Math.abs(number) < 1e-3 && number !== 0 ? number.toExponential(2) : number.toFixed(digits));
  return [
    `trainer     step ${trainer.step} · loss ${value(trainer.loss)} · grad norm ${value(trainer.grad_norm)} · lr ${value(trainer.lr)} · train/rollout log-prob diff ${value(trainer.logprob_diff)}${trainer.entropy ? ` · entropy ${value(trainer.entropy.value)} (from ${trainer.entropy.source})` : ""}${trainer.last_step_at ? ` · ${ago(trainer.last_step_at)}` : ""}`,
    ...stalled,
  ];
}

/** method hybrid: the share of judged turns per dispatch case, candidates per sample, the trainer's selection. */
function hybridLines(hybrid: NonNullable<StatusSnapshot["hybrid"]>): string[] {
  const judged = Object.values(hybrid.cases).reduce((sum, count) => sum + count, 0);
  const share = (count: number) => (judged > 0 ? `${Math.round((100 * count) / judged)}%` : "–");
  const value = (number: number | null) => (number === null ? "–" : number.toFixed(2));
  return [
    `hybrid      turns: ${Object.entries(hybrid.cases).map(([name, count]) => `${name} ${share(count)}`).join(" · ")} · ${value(hybrid.candidates_per_turn)} candidates per sample`,
    `            trainer: k* ${value(hybrid.k_star)} · overlap at k* ${value(hybrid.overlap_at_k_star)} · OPD subset size ${value(hybrid.subset_size)}`,
  ];
}

function checkpointLines(checkpoints: StatusSnapshot["checkpoints"]): string[] {
  if (checkpoints.length === 0) return ["checkpoints none saved yet"];
  return [
    `checkpoints ${checkpoints.length} kept`,
    ...checkpoints.map((checkpoint) => `  iter ${String(checkpoint.iteration).padStart(7, "0")}  ${gib(checkpoint.bytes)}  ${new Date(checkpoint.saved_at).toISOString().slice(0, 19).replace("T", " ")}  ${checkpoint.path}${checkpoint.latest ? "  (latest)" : ""}`),
  ];
}

function gib(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

export function progressBar(value: number, total: number, width: number): string {
  const filled = total > 0 ? Math.min(width, Math.round((value / total) * width)) : 0;
  return `[${"█".repeat(filled)}${"·".repeat(width - filled)}]`;
}

function mark(state: string): string {
  return state === "ready" ? "●" : state === "failed" || state === "down" ? "✗" : "○";
}

function truncate(text: string, width: number): string {
  return text.length > width && width > 3 ? `${text.slice(0, width - 1)}…` : text;
}

/**
 * What the last weight update was and how long it took at most. Version 1 is always the trainer's initial sync (slime's
 * train_async.py and the stand-in trainer push their starting weights once before the first rollout), not a batch.
 */
function updateWords(update: NonNullable<StatusSnapshot["last_weights_update"]>, status: StatusSnapshot): string {
  const took = `took ${boundDuration(update.duration_ms)} (between polls)`;
  return update.to_version === "1" ? `v1: the trainer's initial sync of ${startWords(status)}, no batch trained in it; ${took}` : `the update ${took}`;
}

/** What v1 holds: the base weights or the checkpoint resumed; after slime restarted, its last checkpoint when one was saved. */
function startWords(status: StatusSnapshot): string {
  const start = status.starting_weights;
  if (start === null) return "the weights it starts from";
  const base = status.engine === "rehearsal" ? "the stand-in's initial policy: rehearsal keeps no checkpoint" : `model.path ${start.path}`;
  const first = start.kind === "base" ? `the base weights (${base})` : `the checkpoint it resumed (training.load_dir ${start.path})`;
  // a restarted slime job loads training.save_dir's last checkpoint when there is one (launchers/supervisor/plan-children.ts)
  return status.engine === "slime" && status.last_version_reset !== null ? `the last checkpoint in training.save_dir, else ${first}` : first;
}

/** On a used records folder whose trainer starts from the base weights: what earlier runs trained is not in them. */
function restartedFromBase(status: StatusSnapshot): string {
  const earlier = (status.records_folder?.samples_trained ?? 0) > status.samples.trained;
  return earlier && status.starting_weights?.kind === "base" ? " (earlier runs' training is not in this run's weights: its trainer started from the base weights)" : "";
}

/** An update's duration, an upper bound (the gap between two polls), rounded up: sub-second ones to a tenth. */
function boundDuration(ms: number): string {
  if (ms < 1000) return `≤${(Math.max(1, Math.ceil(ms / 100)) / 10).toFixed(1)}s`;
  return ms < 90_000 ? `≤${Math.ceil(ms / 1000)}s` : `≤${Math.ceil(ms / 60_000)}m`;
}

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 90) return `${seconds}s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)}m`;
  return `${(seconds / 3600).toFixed(1)}h`;
}

/** The lines of `next` that `previous` did not hold (a piped `status --watch` prints only those). */
export function changedLines(previous: ReadonlySet<string>, next: readonly string[]): string[] {
  return next.filter((line) => line.trim() !== "" && !previous.has(line));
}

/** A client whose main turns asked for sampling they did not get, or were drawn off-policy: in words. */
function clientSamplingLine(client: StatusSnapshot["clients"][number]): string {
  const asked = Object.entries(client.asked).map(([key, count]) => `${key} ×${count}`).join(", ");
  const parts = [];
  if (client.asked_otherwise > 0) parts.push(`${client.asked_otherwise} of ${client.main_turns} main turns asked for other sampling (${asked}), drawn at the trainer's instead`);
  if (client.off_policy > 0) parts.push(`${client.off_policy} drawn off-policy (not trained)`);
  return `  ${client.client}: ${parts.join("; ")}`;
}
