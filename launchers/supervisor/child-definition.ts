// What the supervisor needs to know about one child besides its argv: how to tell it is ready, how long to
// wait, whether it restarts, what it waits for, and the graceful stop it needs before signals.
import type { EngineState } from "../../contracts/events.ts";
import type { ProcessSpec } from "../../contracts/plan.ts";
import type { ChildResult } from "./child-result.ts";
import type { ReadinessProbe } from "./readiness-probe.ts";
import type { RestartPolicy } from "./restart-policy.ts";

export interface ChildDefinition {
  name: string;
  /** null: nothing to launch, only an endpoint to watch (engine.kind external). */
  spec: ProcessSpec | null;
  /** service: runs until stopped; oneshot: exits 0 once its work is handed off (`ray start` without --block). */
  lifetime: "service" | "oneshot";
  probe: ReadinessProbe;
  readyTimeoutMs: number;
  /** How often a ready child is probed again (a hung judge turns "down"); 0 = never. */
  recheckMs: number;
  /**
   * How long a child of ours that was ready may stay down (its probe failing) before it counts as hung: its
   * graceful stop (if any) runs, its process group is stopped, and it goes through `restart` like a crash.
   * Infinity = never (a child that only the probe watches, or one that must never be stopped for this).
   */
  hungAfterMs: number;
  restart: RestartPolicy;
  /** While this child is not ready, the proxy answers 503. */
  gatesTraffic: boolean;
  /** Names of children that must be ready before this one starts (the slime job waits for the Ray head). */
  after: string[];
  /** Rewrites the spec before restart number `attempt` (a new submission id, --load from the last checkpoint). */
  respawn?: (spec: ProcessSpec, attempt: number) => ProcessSpec;
  /** A graceful stop that runs before any signal (`ray job stop` and wait). */
  gracefulStop?: () => Promise<void>;
  /**
   * Its leader stops the rest of its group in order on SIGTERM (`ray start --block`): a graceful stop and the orphan
   * watchdog SIGTERM the leader alone first and give it time, before signalling the group. Never `ray stop`, which
   * stops every Ray of the machine's user by process name.
   */
  leaderStopsGroup?: boolean;
}

export interface ChildStatus {
  name: string;
  state: EngineState;
  detail: string;
  pid: number | undefined;
  restarts: number;
  ready: boolean;
  gatesTraffic: boolean;
  lastResult: ChildResult | undefined;
  logFile: string | undefined;
}
