// One supervised child across its restarts: spawns it with execa in its own process group, forwards its
// lines to its log, polls readiness, turns its end into a ChildResult and applies the restart policy.
// Knows nothing of other children or of stop order (supervisor.ts).
import { existsSync } from "node:fs";
import { execa } from "execa";
import { sleepUnlessAborted } from "../../lib/abortable-sleep.ts";
import type { EngineState } from "../../contracts/events.ts";
import type { ProcessSpec } from "../../contracts/plan.ts";
import type { ChildDefinition, ChildStatus } from "./child-definition.ts";
import { ChildLog, redactArgv, type TerminalWriter } from "./child-log.ts";
import { readLines } from "./line-reader.ts";
import { childResult, type ChildResult } from "./child-result.ts";
import type { OrphanWatchdog } from "./orphan-watchdog.ts";
import type { ProbeResult } from "./readiness-probe.ts";
import type { PidRegistry } from "./pid-registry.ts";
import { isGroupAlive, terminateGroup } from "./process-group.ts";
import { drainOutput, processExit } from "./process-exit.ts";
import { restartDelay } from "./restart-policy.ts";
import { withTimeout } from "./with-timeout.ts";

export interface ChildContext {
  logsDir: string;
  /** Size cap of each child's log before it is rotated (default 64 MiB, see rotating-log-file.ts). */
  logMaxBytes?: number;
  /** Base environment of every child (PATH, HOME, ...); the spec's env goes on top. */
  baseEnvironment: Record<string, string | undefined>;
  terminal?: TerminalWriter;
  echoLines?: boolean;
  registry?: PidRegistry;
  watchdog?: OrphanWatchdog;
  stopGraceMs: number;
  onState: (name: string, state: EngineState, detail: string) => void;
}

const READY_POLL_MS = 200;
/**
 * A ready child whose probe fails is probed this many times more, DOWN_RECHECK_MS apart, before it counts as down
 * (and, for a child that gates traffic, chat is answered 503): one reset connection or one late answer is not an
 * engine that is down.
 */
const DOWN_CONFIRMATIONS = 2;
const DOWN_RECHECK_MS = 300;
/** Bound of a hung child's graceful stop (`ray job stop` of a hung slime job) before its group is signalled. */
const HUNG_GRACEFUL_STOP_MS = 90_000;
/** After a child ended (and the rest of its group was stopped), how long its last output lines may still take. */
const OUTPUT_DRAIN_MS = 2000;

export class SupervisedChild {
  readonly log: ChildLog | undefined;
  private state: EngineState = "starting";
  private detail = "waiting to start";
  private pid: number | undefined;
  private restarts = 0;
  private lastResult: ChildResult | undefined;
  /** Stopping for good (beginStop): no more restarts or probes, and its exit is one we asked for. */
  private stopping = false;
  /**
   * Why we stopped this incarnation ourselves, if we did: never ready in time, or ready and then down for longer
   * than definition.hungAfterMs (hung).
   */
  private stoppedBecause: { kind: "not-ready" } | { kind: "hung"; downMs: number; detail: string } | null = null;
  private readonly stopController = new AbortController();
  private readyWaiters: Array<(ready: boolean) => void> = [];
  private loop: Promise<void> | undefined;

  constructor(readonly definition: ChildDefinition, private readonly context: ChildContext) {
    this.log = definition.spec ? new ChildLog({ logsDir: context.logsDir, name: definition.name, terminal: context.terminal, echoLines: context.echoLines, maxBytes: context.logMaxBytes }) : undefined;
  }

  start(): void {
    this.loop ??= (this.definition.spec ? this.runProcess(this.definition.spec) : this.watch(Date.now(), "attached")).catch((error) => {
      this.setState("failed", `supervisor error: ${(error as Error).message}`);
    });
  }

  /** Resolves true once ready, false if it failed for good or was stopped first. */
  waitReady(): Promise<boolean> {
    if (this.state === "ready") return Promise.resolve(true);
    if (this.state === "failed" || this.state === "stopped") return Promise.resolve(false);
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  status(): ChildStatus {
    return {
      name: this.definition.name,
      state: this.state,
      detail: this.detail,
      pid: this.pid,
      restarts: this.restarts,
      ready: this.state === "ready",
      gatesTraffic: this.definition.gatesTraffic,
      lastResult: this.lastResult,
      logFile: this.log?.file,
    };
  }

  /** No more restarts or probes; its own exit from now on counts as a stop we asked for. */
  beginStop(): void {
    this.stopping = true;
    this.stopController.abort();
  }

  /** SIGTERM → SIGKILL its process group (graceMs 0 = SIGKILL at once), then wait for the loop to end. */
  async stop(graceMs: number): Promise<ChildResult | undefined> {
    this.beginStop();
    const pid = this.pid;
    if (pid !== undefined && isGroupAlive(pid)) {
      if (graceMs <= 0) process.kill(-pid, "SIGKILL");
      else await terminateGroup(pid, graceMs);
    }
    await Promise.race([this.loop, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (this.state !== "failed") this.setState("stopped", this.lastResult?.summary ?? "stopped");
    this.log?.close();
    return this.lastResult;
  }

  private async runProcess(firstSpec: ProcessSpec): Promise<void> {
    let spec = firstSpec;
    let attempt = 0;
    while (!this.stopping) {
      const startedAt = Date.now();
      const result = await this.runIncarnation(spec, startedAt);
      this.lastResult = result;
      if (this.stopping) return;
      if (result.ok) {
        this.log?.lifecycle("info", `${result.summary}; watching its readiness`);
        return this.watch(startedAt, "handed off");
      }
      attempt = result.durationMs >= stableAfter(this.definition) ? 1 : attempt + 1;
      const delay = restartDelay(this.definition.restart, attempt);
      this.log?.lifecycle("error", result.summary, { result });
      for (const line of result.outputTail.slice(-10)) this.context.terminal?.(`  ${this.definition.name} │ ${line}`);
      if (delay === null) {
        const why = this.definition.restart.kind === "never" ? "no restart policy" : "gave up restarting";
        this.setState("failed", `${result.summary} (${why})`);
        return;
      }
      this.setState("down", `restarting in ${(delay / 1000).toFixed(1)}s: ${result.summary}`);
      if (!(await this.sleep(delay))) return;
      this.restarts += 1;
      spec = this.definition.respawn ? this.definition.respawn(spec, this.restarts) : spec;
      this.log?.resetTail();
    }
  }

  private async runIncarnation(spec: ProcessSpec, startedAt: number): Promise<ChildResult> {
    const [file, ...args] = spec.argv;
    this.stoppedBecause = null;
    if (!file || !existsSync(spec.cwd)) {
      return this.end(startedAt, { exitCode: undefined, signal: undefined, reason: !file ? "empty argv" : `working directory ${spec.cwd} does not exist` });
    }
    const environment = { ...this.context.baseEnvironment, ...spec.env };
    const subprocess = execa(file, args, {
      cwd: spec.cwd,
      env: environment,
      extendEnv: false,
      detached: true,
      stdin: "pipe", // kept open: our stand-ins exit when it closes (the orchestrator died)
      stdout: "pipe",
      stderr: "pipe",
      buffer: false,
      reject: false,
      cleanup: false,
    });
    this.pid = subprocess.pid;
    const exited = processExit(subprocess);
    if (this.pid !== undefined) {
      this.context.registry?.add({ name: spec.name, pid: this.pid, command: file, startedAt });
      this.context.watchdog?.watchGroup(this.pid, this.definition.leaderStopsGroup === true);
      this.log?.lifecycle("info", `started pid ${this.pid}: ${redactArgv(spec.argv).join(" ")}`, { pid: this.pid, argv: spec.argv, cwd: spec.cwd });
      this.setState("starting", `pid ${this.pid}, waiting for readiness`);
    }
    const lineStreams = [
      readLines(subprocess.stdout, (line) => this.log?.line("stdout", line)),
      readLines(subprocess.stderr, (line) => this.log?.line("stderr", line)),
    ];
    const ended = new AbortController();
    const polling = this.pollReadiness(startedAt, ended.signal);
    const exit = await exited;
    ended.abort();
    const planned = this.definition.lifetime === "oneshot" && exit.exitCode === 0 && this.stoppedBecause === null;
    if (this.pid !== undefined && !planned && !this.stopping && isGroupAlive(this.pid)) {
      // it ended, but processes it started live on in its group (holding its output open): they go with it
      this.log?.lifecycle("warn", `pid ${this.pid} ended (${exit.signal ?? `exit ${exit.exitCode}`}), but processes of its group are still running: stopping them`);
      await terminateGroup(this.pid, this.context.stopGraceMs);
    }
    await drainOutput(subprocess, lineStreams, OUTPUT_DRAIN_MS);
    if (this.pid !== undefined) {
      this.context.registry?.remove(this.pid);
      if (!isGroupAlive(this.pid)) this.context.watchdog?.forgetGroup(this.pid);
    }
    await polling;
    return this.end(startedAt, exit);
  }

  private end(startedAt: number, outcome: { exitCode: number | undefined; signal: string | undefined; reason: string | undefined }): ChildResult {
    const stderrTail = this.log?.stderrTail() ?? [];
    return childResult({
      name: this.definition.name,
      pid: this.pid,
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      timedOut: this.stoppedBecause?.kind === "not-ready",
      hung: this.stoppedBecause?.kind === "hung" ? { downMs: this.stoppedBecause.downMs, detail: this.stoppedBecause.detail } : undefined,
      killedByUs: this.stopping,
      startedAt,
      stderrTail: outcome.reason ? [...stderrTail, outcome.reason] : stderrTail,
      outputTail: this.log?.outputTail() ?? [],
      expectedToExit: this.definition.lifetime === "oneshot",
    });
  }

  /**
   * Polls the probe until ready (or the readiness timeout), then rechecks a ready child every recheckMs; one that
   * stays down longer than hungAfterMs is stopped (and restarted like a crash, by runProcess).
   */
  private async pollReadiness(startedAt: number, processEnded: AbortSignal): Promise<void> {
    let downSince: number | undefined;
    while (!this.stopping && !processEnded.aborted) {
      const probe = await this.probe(startedAt, processEnded);
      if (this.stopping || processEnded.aborted) return;
      if (probe.ready) {
        downSince = undefined;
        if (this.state !== "ready") this.setState("ready", probe.detail);
        if (this.definition.recheckMs <= 0) return;
        if (!(await this.sleep(this.definition.recheckMs, processEnded))) return;
        continue;
      }
      if (this.state === "ready") {
        downSince = Date.now();
        this.setState("down", `not answering: ${probe.detail}`);
      } else if (downSince !== undefined && Date.now() - downSince >= this.definition.hungAfterMs) {
        return this.stopHung(Date.now() - downSince, probe.detail);
      } else if (this.state !== "down" && Date.now() - startedAt > this.definition.readyTimeoutMs) {
        this.stoppedBecause = { kind: "not-ready" };
        this.log?.lifecycle("error", `not ready after ${Math.round(this.definition.readyTimeoutMs / 1000)}s (${probe.detail}); stopping it`);
        if (this.pid !== undefined) await terminateGroup(this.pid, this.context.stopGraceMs);
        return;
      } else if (this.state !== "down") {
        this.detail = probe.detail;
      }
      if (!(await this.sleep(this.state === "down" ? Math.max(READY_POLL_MS, this.definition.recheckMs) : READY_POLL_MS, processEnded))) return;
    }
  }

  /** Down too long: hung. Its graceful stop (bounded), then SIGTERM → SIGKILL of its group; its exit is a crash. */
  private async stopHung(downMs: number, detail: string): Promise<void> {
    this.stoppedBecause = { kind: "hung", downMs, detail };
    this.log?.lifecycle("error", `down for ${Math.round(downMs / 1000)}s (${detail}): hung, stopping it to start it again`);
    if (this.definition.gracefulStop) {
      const stopped = await withTimeout(this.definition.gracefulStop(), HUNG_GRACEFUL_STOP_MS).catch((error: Error) => `failed: ${error.message}`);
      if (stopped !== undefined) this.log?.lifecycle("warn", `graceful stop ${stopped === "timeout" ? `took longer than ${HUNG_GRACEFUL_STOP_MS / 1000}s` : stopped}; signalling it`);
    }
    if (this.pid === undefined || this.stopping) return;
    await terminateGroup(this.pid, this.context.stopGraceMs);
    if (isGroupAlive(this.pid)) this.log?.lifecycle("error", `process group ${this.pid} is still there after SIGKILL (stuck in the kernel, e.g. a GPU driver call); waiting for it to exit`);
  }

  /** No process of ours (any longer): readiness comes from the probe alone, down and back up by itself. */
  private async watch(startedAt: number, how: string): Promise<void> {
    let everReady = this.state === "ready";
    while (!this.stopping) {
      const probe = await this.probe(startedAt);
      if (this.stopping) return;
      if (probe.ready && this.state !== "ready") this.setState("ready", probe.detail);
      if (!probe.ready && this.state === "ready") this.setState("down", `not answering: ${probe.detail}`);
      if (!probe.ready && !everReady && Date.now() - startedAt > this.definition.readyTimeoutMs && this.definition.spec) {
        this.stoppedBecause = { kind: "not-ready" };
        this.setState("failed", `${how}, but not ready after ${Math.round(this.definition.readyTimeoutMs / 1000)}s: ${probe.detail}`);
        return;
      }
      if (!probe.ready && !everReady) this.detail = probe.detail;
      everReady ||= probe.ready;
      const interval = probe.ready ? this.definition.recheckMs || 2000 : READY_POLL_MS * 2;
      if (!(await this.sleep(interval))) return;
    }
  }

  /** The probe's answer; while the child is ready, a failure is probed again (DOWN_CONFIRMATIONS) before it counts. */
  private async probe(startedAt: number, processEnded?: AbortSignal): Promise<ProbeResult> {
    let probe = await this.definition.probe({ startedAt });
    for (let again = 0; !probe.ready && this.state === "ready" && again < DOWN_CONFIRMATIONS; again++) {
      if (this.stopping || !(await this.sleep(DOWN_RECHECK_MS, processEnded))) break;
      probe = await this.definition.probe({ startedAt });
    }
    return probe;
  }

  private setState(state: EngineState, detail: string): void {
    const changed = state !== this.state || detail !== this.detail;
    this.state = state;
    this.detail = detail;
    if (!changed) return;
    if (state === "ready" || state === "failed" || state === "stopped") {
      const waiters = this.readyWaiters;
      this.readyWaiters = [];
      for (const resolve of waiters) resolve(state === "ready");
    }
    if (state === "ready") this.log?.lifecycle("info", `ready (${detail})`);
    else if (state === "down") this.log?.lifecycle("warn", `down: ${detail}`);
    this.context.onState(this.definition.name, state, detail);
  }

  /** Sleeps unless a stop comes first; false when stopped. */
  private sleep(ms: number, alsoUntil?: AbortSignal): Promise<boolean> {
    return sleepUnlessAborted(ms, alsoUntil ? AbortSignal.any([this.stopController.signal, alsoUntil]) : this.stopController.signal);
  }
}

function stableAfter(definition: ChildDefinition): number {
  return definition.restart.kind === "backoff" ? definition.restart.stableAfterMs : Number.POSITIVE_INFINITY;
}
