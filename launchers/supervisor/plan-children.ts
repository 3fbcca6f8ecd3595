// Plan → supervised children: which readiness probe, restart policy, dependencies and stop hooks each
// planned process gets (Ray head, slime job, standalone judge, rehearsal stand-ins), plus the endpoints
// watched for engine.kind external. Argv and env come from the plan untouched, except for restarts.
import path from "node:path";
import type { BridgeHello } from "../../contracts/bridge.ts";
import type { ProcessSpec, LaunchPlan } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { checkpointIn } from "../slime/checkpoint-folder.ts";
import type { ChildDefinition } from "./child-definition.ts";
import { aliveForProbe, httpProbe, type ProbeResult, type ReadinessProbe } from "./readiness-probe.ts";
import { backoffPolicy, NEVER_RESTART } from "./restart-policy.ts";
import { RayControl } from "./ray-control.ts";

/** The latest hello, when it was said after `startedAt` (by this incarnation of the trainer), else null. */
async function helloSince(hooks: DefinitionHooks, startedAt: number): Promise<{ hello: BridgeHello | null; stale: BridgeHello | null }> {
  const hello = await hooks.bridgeHello();
  if (!hello) return { hello: null, stale: null };
  return hello.at >= startedAt ? { hello, stale: null } : { hello: null, stale: hello };
}

function staleNote(stale: BridgeHello | null): string {
  return stale ? ` (the last one, at ${new Date(stale.at).toISOString()}, came from a process started before this one)` : "";
}

export interface DefinitionHooks {
  /** The latest hello on the bridge, or null before any. */
  bridgeHello: () => BridgeHello | null | Promise<BridgeHello | null>;
  baseEnvironment: Record<string, string | undefined>;
  /** Readiness timeouts (ms); slime loads a model and Megatron, so its default is long. */
  timeouts?: Partial<Record<"rayHead" | "slimeJob" | "judge" | "rehearsal" | "external", number>>;
  recheckMs?: number;
  /**
   * How long a ready child may stay down before it counts as hung and is stopped and restarted like a crash (ms):
   * the standalone judge and the rehearsal stand-ins 60 s, the slime job 10 min (it is stopped with `ray job stop`
   * first); the Ray head never (it is never restarted, and its probe is only its dashboard).
   */
  hungAfterMs?: Partial<Record<"slimeJob" | "judge" | "rehearsal", number>>;
  /** Backoff of restarting children (tests shorten it). */
  restartInitialMs?: number;
}

export function defineChildren(plan: LaunchPlan, recipe: Recipe, hooks: DefinitionHooks): ChildDefinition[] {
  const environments = plan.processes.filter((process) => process.role === "environment-server").map((spec) => environmentServer(spec, hooks));
  if (plan.engine === "external") return [...externalEndpoints(recipe, hooks), ...environments];
  const ray = rayControlFor(recipe, hooks.baseEnvironment, plan.processes);
  const definitions: ChildDefinition[] = [];
  for (const spec of plan.processes.filter((process) => process.node === 0)) {
    if (spec.role === "environment-server") continue;
    if (spec.role === "ray-head") definitions.push(rayHead(spec, recipe, ray, hooks));
    else if (spec.role === "slime-job") definitions.push(slimeJob(withSubmissionId(spec), recipe, ray, hooks, definitions));
    else if (spec.role === "judge-server") definitions.push(standaloneJudge(spec, recipe, hooks));
    else if (spec.role === "standin-server" || spec.role === "standin-trainer") definitions.push(standIn(spec, hooks));
    else throw new Error(`${spec.name}: a ${spec.role} process does not run on the head node`);
  }
  // The stand-in trainer starts together with the stand-in servers (its Python start-up overlaps theirs); like
  // slime's train_async, it waits for the policy server to answer before its first weight sync.
  return [...definitions, ...environments];
}

/**
 * A built-in environment server (environments/serve.ts): ready when GET /healthz answers, restarted on a crash. It
 * does not gate chat traffic; the episode driver waits for it on its own.
 */
function environmentServer(spec: ProcessSpec, hooks: DefinitionHooks): ChildDefinition {
  return {
    name: spec.name,
    spec,
    lifetime: "service",
    probe: httpProbe(`http://127.0.0.1:${spec.port}/healthz`),
    readyTimeoutMs: hooks.timeouts?.rehearsal ?? 60_000,
    recheckMs: hooks.recheckMs ?? 2000,
    hungAfterMs: hooks.hungAfterMs?.rehearsal ?? 60_000,
    restart: backoffPolicy({ initialMs: hooks.restartInitialMs ?? 500, maxRestarts: 10 }),
    gatesTraffic: false,
    after: [],
  };
}

export function rayControlFor(recipe: Recipe, environment: Record<string, string | undefined>, processes: ProcessSpec[] = []): RayControl {
  const head = processes.find((process) => process.role === "ray-head");
  return new RayControl({
    ray: head?.argv[0] ?? recipe.engine.slime.ray,
    gcsAddress: `${recipe.cluster.head_address}:${recipe.cluster.ray_port}`,
    dashboardUrl: `http://127.0.0.1:${recipe.cluster.dashboard_port}`,
    environment: { ...environment, ...(head?.env ?? {}) },
    cwd: head?.cwd,
  });
}

/** The `--submission-id` of a `ray job submit` argv (either `--submission-id X` or `--submission-id=X`). */
export function submissionIdOf(argv: string[]): string | undefined {
  const end = argv.indexOf("--") < 0 ? argv.length : argv.indexOf("--");
  for (let index = 0; index < end; index++) {
    if (argv[index] === "--submission-id") return argv[index + 1];
    if (argv[index]!.startsWith("--submission-id=")) return argv[index]!.slice("--submission-id=".length);
  }
  return undefined;
}

function withSubmissionId(spec: ProcessSpec): ProcessSpec {
  if (submissionIdOf(spec.argv)) return spec;
  const submit = spec.argv.indexOf("submit");
  const argv = [...spec.argv.slice(0, submit + 1), "--submission-id", `openclaw-rl-${Date.now()}`, ...spec.argv.slice(submit + 1)];
  return { ...spec, argv };
}

function rayHead(spec: ProcessSpec, recipe: Recipe, ray: RayControl, hooks: DefinitionHooks): ChildDefinition {
  const nodes = recipe.cluster.nodes;
  const probe: ReadinessProbe = async () => {
    if (!(await ray.dashboardAnswers())) return { ready: false, detail: `Ray dashboard ${ray.options.dashboardUrl} not answering` };
    if (nodes <= 1) return { ready: true, detail: "Ray head answers" };
    const status = await ray.status();
    if (status.nodes < nodes) return { ready: false, detail: `${status.nodes}/${nodes} nodes joined; run \`npx openclaw-rl join --head ${recipe.cluster.head_address}\` on each worker` };
    return { ready: true, detail: `Ray head answers, ${status.nodes}/${nodes} nodes joined` };
  };
  return {
    name: spec.name,
    spec,
    lifetime: spec.argv.includes("--block") ? "service" : "oneshot",
    probe,
    readyTimeoutMs: hooks.timeouts?.rayHead ?? (nodes > 1 ? 30 * 60_000 : 120_000),
    recheckMs: hooks.recheckMs ?? 5000,
    hungAfterMs: Number.POSITIVE_INFINITY,
    restart: NEVER_RESTART,
    gatesTraffic: true,
    after: [],
    // `ray start --block` stops this run's Ray processes on SIGTERM; `ray stop` would stop every Ray of the user
    leaderStopsGroup: true,
  };
}

function slimeJob(spec: ProcessSpec, recipe: Recipe, ray: RayControl, hooks: DefinitionHooks, earlier: ChildDefinition[]): ChildDefinition {
  let current = spec;
  const probe: ReadinessProbe = async ({ startedAt }) => {
    const id = submissionIdOf(current.argv)!;
    const job = await ray.jobStatus(id);
    if (job.status !== "RUNNING") return { ready: false, detail: `job ${id} is ${job.status}${job.message ? `: ${job.message}` : ""}` };
    const { hello, stale } = await helloSince(hooks, startedAt);
    if (!hello) return { ready: false, detail: `job ${id} is RUNNING; waiting for the rollout function's hello on the bridge${staleNote(stale)}` };
    const routers = [hello.routers.policy, hello.routers.judge].filter((url): url is string => typeof url === "string" && url.length > 0);
    for (const router of routers) {
      const health = await httpProbe(`${router.replace(/\/+$/, "")}/health`)();
      if (!health.ready) return { ready: false, detail: `router not healthy: ${health.detail}` };
    }
    return { ready: true, detail: `job ${id} RUNNING, hello received, routers healthy (${routers.join(", ") || "none announced"})` };
  };
  return {
    name: spec.name,
    spec,
    lifetime: "service",
    probe,
    readyTimeoutMs: hooks.timeouts?.slimeJob ?? 60 * 60_000,
    recheckMs: hooks.recheckMs ?? 5000,
    hungAfterMs: hooks.hungAfterMs?.slimeJob ?? 10 * 60_000,
    restart: recipe.training.restart_on_crash ? backoffPolicy({ initialMs: hooks.restartInitialMs ?? 10_000, maxRestarts: 3, stableAfterMs: 30 * 60_000 }) : NEVER_RESTART,
    gatesTraffic: true,
    after: earlier.filter((definition) => definition.spec?.role === "ray-head").map((definition) => definition.name),
    respawn: (previous, attempt) => (current = resumeFromCheckpoint(previous, recipe, attempt)),
    gracefulStop: async () => {
      const id = submissionIdOf(current.argv)!;
      const status = await ray.stopJob(id);
      if (status !== "STOPPED" && status !== "FAILED" && status !== "SUCCEEDED" && status !== "UNKNOWN") throw new Error(`job ${id} still ${status}`);
    },
  };
}

/**
 * A restarted slime job: a new submission id, and `--load <save dir>` only when the save folder holds a checkpoint
 * slime can load (launchers/slime/checkpoint-folder.ts). A crash before the first save restarts exactly like the first
 * start (the recipe's own --load, if any): the fork would otherwise die in its checkpoint assert on every attempt.
 */
export function resumeFromCheckpoint(spec: ProcessSpec, recipe: Recipe, attempt: number): ProcessSpec {
  const argv = [...spec.argv];
  const base = (submissionIdOf(argv) ?? "openclaw-rl").replace(/-r\d+$/, "");
  const separator = argv.indexOf("--");
  for (let index = 0; index < (separator < 0 ? argv.length : separator); index++) {
    if (argv[index] === "--submission-id") argv[index + 1] = `${base}-r${attempt}`;
    else if (argv[index]!.startsWith("--submission-id=")) argv[index] = `--submission-id=${base}-r${attempt}`;
  }
  const entrypointStart = separator < 0 ? 0 : separator;
  const saveIndex = argv.indexOf("--save", entrypointStart);
  const saveDir = saveIndex > 0 ? argv[saveIndex + 1]! : path.resolve(recipe.records.dir, recipe.training.save_dir);
  if (checkpointIn(saveDir, recipe.derived.trainingBackend).kind !== "loadable") return { ...spec, argv };
  const loadIndex = argv.indexOf("--load", entrypointStart);
  if (loadIndex > 0) argv[loadIndex + 1] = saveDir;
  else argv.push("--load", saveDir);
  return { ...spec, argv };
}

function standaloneJudge(spec: ProcessSpec, recipe: Recipe, hooks: DefinitionHooks): ChildDefinition {
  const port = spec.port ?? recipe.judge.port;
  return {
    name: spec.name,
    spec,
    lifetime: "service",
    probe: httpProbe(`http://127.0.0.1:${port}/health_generate`, 25_000),
    readyTimeoutMs: hooks.timeouts?.judge ?? 20 * 60_000,
    recheckMs: hooks.recheckMs ?? 10_000,
    hungAfterMs: hooks.hungAfterMs?.judge ?? 60_000,
    restart: backoffPolicy({ initialMs: hooks.restartInitialMs ?? 2000, maxRestarts: 20 }),
    gatesTraffic: true,
    after: [],
  };
}

/** Rehearsal stand-ins: HTTP servers answer /health on their --port; the stand-in trainer says hello on the bridge. */
function standIn(spec: ProcessSpec, hooks: DefinitionHooks): ChildDefinition {
  const port = spec.port;
  let startedAt = Date.now();
  const trainer = spec.role === "standin-trainer";
  const probe: ReadinessProbe = port !== undefined
    ? httpProbe(`http://127.0.0.1:${port}/health`)
    : trainer
      ? async ({ startedAt: since }): Promise<ProbeResult> => {
          const { hello, stale } = await helloSince(hooks, since);
          return hello ? { ready: true, detail: "said hello on the bridge" } : { ready: false, detail: `waiting for its hello on the bridge${staleNote(stale)}` };
        }
      : aliveForProbe(() => startedAt, 500);
  return {
    name: spec.name,
    spec,
    lifetime: "service",
    probe,
    readyTimeoutMs: hooks.timeouts?.rehearsal ?? 60_000,
    recheckMs: hooks.recheckMs ?? 2000,
    hungAfterMs: hooks.hungAfterMs?.rehearsal ?? 60_000,
    restart: backoffPolicy({ initialMs: hooks.restartInitialMs ?? 500, maxRestarts: 10 }),
    gatesTraffic: !trainer,
    after: [],
    respawn: (previous) => {
      startedAt = Date.now();
      return previous;
    },
  };
}

function externalEndpoints(recipe: Recipe, hooks: DefinitionHooks): ChildDefinition[] {
  const endpoint = (name: string, url: string, probePath: string): ChildDefinition => ({
    name,
    spec: null,
    lifetime: "service",
    probe: httpProbe(`${url.replace(/\/+$/, "")}${probePath}`),
    readyTimeoutMs: hooks.timeouts?.external ?? Number.POSITIVE_INFINITY,
    recheckMs: hooks.recheckMs ?? 5000,
    hungAfterMs: Number.POSITIVE_INFINITY, // nothing of ours to restart: it comes back when its server does
    restart: NEVER_RESTART,
    gatesTraffic: true,
    after: [],
  });
  const definitions = [endpoint("policy", recipe.engine.policy_url!, "/health")];
  const judge = recipe.derived.judgeUrl;
  if (judge) definitions.push(endpoint("judge", judge, "/health"));
  return definitions;
}
