// The set of supervised children of a run: starts them in dependency order, reports their states and the
// proxy's readiness gate, and stops them in order (graceful hooks newest first, then SIGTERM → SIGKILL of
// every group still alive). Children die with us through the orphan watchdog.
import path from "node:path";
import type { EngineState } from "../../contracts/events.ts";
import type { ChildDefinition, ChildStatus } from "./child-definition.ts";
import type { TerminalWriter } from "./child-log.ts";
import type { ChildResult } from "./child-result.ts";
import { OrphanWatchdog } from "./orphan-watchdog.ts";
import { PidRegistry } from "./pid-registry.ts";
import { isProcessAlive, terminateThroughLeader } from "./process-group.ts";
import { SupervisedChild } from "./supervised-child.ts";
import { withTimeout } from "./with-timeout.ts";

export interface SupervisorOptions {
  runDir: string;
  baseEnvironment: Record<string, string | undefined>;
  terminal?: TerminalWriter;
  echoLines?: boolean;
  /** Size cap of each child's <name>.log before it is rotated to <name>.log.1 (default 64 MiB). */
  logMaxBytes?: number;
  /** Grace between SIGTERM and SIGKILL. */
  stopGraceMs?: number;
  /** Bound of each graceful stop (ray job stop; the Ray head's leader stopping its group). */
  gracefulStopTimeoutMs?: number;
  onState?: (name: string, state: EngineState, detail: string) => void;
  /** Start the orphan watchdog (default true). */
  watchdog?: boolean;
}

export interface TrafficGate {
  ready: boolean;
  /** Why traffic is refused: `judge is down: restarting in 2.0s: judge exited with code 1 ...`. */
  reason: string;
  retryAfterS: number;
}

export interface StopReport {
  forced: boolean;
  steps: string[];
  results: ChildResult[];
}

export class Supervisor {
  private readonly children = new Map<string, SupervisedChild>();
  private readonly registry: PidRegistry;
  private readonly watchdog: OrphanWatchdog | undefined;
  private readonly stopGraceMs: number;
  private stopping: Promise<StopReport> | undefined;
  private shuttingDown = false;

  constructor(private readonly options: SupervisorOptions) {
    this.registry = new PidRegistry(options.runDir);
    this.registry.write();
    this.stopGraceMs = options.stopGraceMs ?? 10_000;
    this.watchdog = options.watchdog === false ? undefined : new OrphanWatchdog(this.stopGraceMs);
  }

  /** Starts every definition once the ones it comes after are ready; resolves when all were started. */
  start(definitions: ChildDefinition[]): Promise<void> {
    for (const definition of definitions) {
      if (this.children.has(definition.name)) throw new Error(`duplicate child name ${definition.name}`);
      const child = new SupervisedChild(definition, {
        logsDir: path.join(this.options.runDir, "logs"),
        baseEnvironment: this.options.baseEnvironment,
        terminal: this.options.terminal,
        echoLines: this.options.echoLines,
        logMaxBytes: this.options.logMaxBytes,
        registry: this.registry,
        watchdog: this.watchdog,
        stopGraceMs: this.stopGraceMs,
        onState: (name, state, detail) => this.options.onState?.(name, state, detail),
      });
      this.children.set(definition.name, child);
    }
    const started = definitions.map(async (definition) => {
      for (const name of definition.after) {
        const dependency = this.children.get(name);
        if (dependency && !(await dependency.waitReady())) {
          this.options.terminal?.(`✗ ${definition.name}: not started, because ${name} never became ready`);
          return;
        }
      }
      if (!this.stopping && !this.shuttingDown) this.children.get(definition.name)!.start();
    });
    return Promise.all(started).then(() => undefined);
  }

  /** Resolves true when every child is ready, false when one failed for good or the time is up. */
  async waitAllReady(timeoutMs: number): Promise<boolean> {
    const all = Promise.all([...this.children.values()].map((child) => child.waitReady())).then((values) => values.every(Boolean));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const anyFailed = new Promise<boolean>((resolve) => {
      for (const child of this.children.values()) void child.waitReady().then((ready) => !ready && resolve(false));
    });
    try {
      return await Promise.race([all, timeout, anyFailed]);
    } finally {
      clearTimeout(timer);
    }
  }

  statuses(): ChildStatus[] {
    return [...this.children.values()].map((child) => child.status());
  }

  status(name: string): ChildStatus | undefined {
    return this.children.get(name)?.status();
  }

  /** The proxy's readiness callback: open only while every traffic-gating child is ready. */
  trafficGate(): TrafficGate {
    if (this.stopping || this.shuttingDown) return { ready: false, reason: "openclaw-rl is shutting down", retryAfterS: 30 };
    const blocked = this.statuses().filter((status) => status.gatesTraffic && !status.ready);
    if (blocked.length === 0) return { ready: true, reason: "all engines ready", retryAfterS: 0 };
    const reason = blocked.map((status) => `${status.name} is ${status.state}: ${status.detail}`).join("; ");
    const failed = blocked.some((status) => status.state === "failed");
    return { ready: false, reason, retryAfterS: failed ? 60 : 5 };
  }

  /** From now on no restarts, and exits count as stops we asked for (the orchestrator is draining first). */
  beginShutdown(): void {
    this.shuttingDown = true;
    for (const child of this.children.values()) child.beginStop();
  }

  /** Stop order: graceful stops newest first (ray job stop → the Ray head's leader), then SIGTERM → SIGKILL of each live group. */
  stop(options: { force?: boolean } = {}): Promise<StopReport> {
    const force = options.force ?? false;
    if (this.stopping && !force) return this.stopping;
    const run = this.runStop(force);
    this.stopping = run;
    return run;
  }

  private async runStop(force: boolean): Promise<StopReport> {
    const steps: string[] = [];
    const children = [...this.children.values()].reverse();
    for (const child of children) child.beginStop();
    const bound = this.options.gracefulStopTimeoutMs ?? 90_000;
    for (const child of children) {
      const hook = force ? undefined : gracefulStopOf(child, bound);
      if (!hook) continue;
      steps.push(`${child.definition.name}: graceful stop`);
      const outcome = await withTimeout(hook(), bound).catch((error) => `failed: ${(error as Error).message}`);
      if (outcome === "timeout") steps.push(`${child.definition.name}: graceful stop took longer than ${bound / 1000}s, signalling it`);
      else if (typeof outcome === "string") steps.push(`${child.definition.name}: graceful stop ${outcome}`);
    }
    const results = await Promise.all(
      children.map(async (child) => {
        const status = child.status();
        if (status.pid !== undefined) steps.push(`${child.definition.name}: ${force ? "SIGKILL" : "SIGTERM"} group ${status.pid} if alive`);
        return child.stop(force ? 0 : this.stopGraceMs);
      }),
    );
    await this.watchdog?.release();
    this.registry.write();
    return { forced: force, steps, results: results.filter((result): result is ChildResult => result !== undefined) };
  }
}

/** A child's graceful stop: its own hook, else (leaderStopsGroup) SIGTERM to its leader and the wait for its group. */
function gracefulStopOf(child: SupervisedChild, boundMs: number): (() => Promise<void>) | undefined {
  if (child.definition.gracefulStop) return child.definition.gracefulStop;
  const pid = child.status().pid;
  // a leader that already ended (`ray start` without --block) leaves its group to the signals that follow
  if (!child.definition.leaderStopsGroup || pid === undefined || !isProcessAlive(pid)) return undefined;
  return async () => {
    if (!(await terminateThroughLeader(pid, boundMs))) throw new Error(`process group ${pid} still there after its leader's SIGTERM`);
  };
}
