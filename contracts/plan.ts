// What `plan` computes and `start` runs: the GPU placement per node and every process with argv, env, cwd.
import type { Method } from "./recipe.ts";

export interface NodePlacement {
  node: number; // 0 = head
  actor: number[]; // GPU ids on this node
  rollout: number[];
  prm: number[];
  idle: number[];
}

export interface EngineSlot {
  role: "rollout" | "prm";
  node: number;
  gpus: number[]; // tp consecutive ids on that node
}

export interface Placement {
  nodes: NodePlacement[];
  engines: EngineSlot[];
  totalGpus: number;
}

/** What a process is, which decides how it is probed, restarted and stopped. */
export type ProcessRole = "ray-head" | "ray-worker" | "slime-job" | "judge-server" | "standin-server" | "standin-trainer" | "environment-server" | "checkpoint-converter" | "checkpoint-server";

export interface ProcessSpec {
  /** Stable name used in logs and status: ray-head, slime-job, judge, rehearsal-policy, ... */
  name: string;
  role: ProcessRole;
  /** The port it answers HTTP on (its health probe), for the processes that serve one on this node. */
  port?: number;
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** Which node runs it (0 = head); worker-node commands are printed for `openclaw-rl join`. */
  node: number;
  /** Env keys whose values are secrets (shown as *** by `plan`). */
  secretEnv?: string[];
}

/** A file `start` writes before it starts the processes (e.g. slime's --custom-config-path YAML). */
export interface PlanFile {
  path: string; // absolute
  content: string;
  mode?: number; // default 0o644
}

export interface LaunchPlan {
  method: Method;
  engine: "slime" | "external" | "rehearsal";
  placement: Placement | null; // null for engines without GPUs
  processes: ProcessSpec[];
  /** Files the processes read; `start` writes them, `plan` only lists them. */
  files?: PlanFile[];
  /** Things `start` cannot do on this machine yet (e.g. "rehearsal engine not built"). */
  notes: string[];
}

/** What the plan needs besides the recipe; `plan` fills placeholders, `start` the real values. */
export interface PlanContext {
  packageRoot: string; // the openclaw-rl package folder (native/ lives here)
  runDir: string; // absolute records.dir
  bridgeUrl: string; // OPENCLAW_RL_BRIDGE
  bridgeToken: string; // OPENCLAW_RL_BRIDGE_TOKEN (secret)
  /** The caller's environment, read only for secrets the recipe names (e.g. wandb.key_env). */
  environment: Record<string, string | undefined>;
  /** Id of this run, used for Ray's --submission-id (`openclaw-rl-<runId>`); `plan` uses "plan". */
  runId?: string;
}
