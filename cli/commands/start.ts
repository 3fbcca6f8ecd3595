// `openclaw-rl start`: run id → bridge listener → launch plan → checks → run folder → orchestrator (proxy, judge,
// store, bridge, status) → admin endpoint file → plan files → supervised engines → one banner → wait for Ctrl-C /
// SIGTERM (a second one forces) → ordered stop.
import { episodesDoneLine } from "../../orchestrator/episodes/episodes-done-line.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { OpenclawRlError, OpenclawRlErrorList } from "../../contracts/errors.ts";
import type { LaunchPlan, PlanContext } from "../../contracts/plan.ts";
import type { RunEvent } from "../../contracts/events.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { buildLaunchPlan } from "../../launchers/launch-plan.ts";
import { checkStart } from "../../launchers/checks/start-checks.ts";
import { defineChildren } from "../../launchers/supervisor/plan-children.ts";
import { Supervisor, type StopReport } from "../../launchers/supervisor/supervisor.ts";
import { ResourceStack } from "../../lib/resource-stack.ts";
import { BridgeListener } from "../../orchestrator/bridge/bridge-listener.ts";
import { bridgeHost } from "../../orchestrator/bridge/bridge-server.ts";
import { startOrchestrator, type RunningOrchestrator } from "../../orchestrator/run.ts";
import { ADMIN_ENDPOINT_FILE } from "../../orchestrator/status/admin-token.ts";
import { recipeFromOptions, withRecipeOptions, type CommonOptions } from "../common-options.ts";
import { PACKAGE_ROOT } from "../recipe-file.ts";
import { EngineGate } from "./engine-gate.ts";
import { createRunFolder } from "./run-folder.ts";
import { formatBanner } from "./start-banner.ts";

interface StartOptions extends CommonOptions {
  followLogs?: boolean;
  readyTimeout: string;
}

export function registerStartCommand(program: Command): void {
  withRecipeOptions(program.command("start"))
    .description("Start the proxy, judge, sample store and bridge, launch and supervise the engines; Ctrl-C stops (twice forces)")
    .option("--follow-logs", "echo every engine's output lines on the terminal (they are always in <run>/logs/)")
    .option("--ready-timeout <seconds>", "how long to wait for the engines before printing the banner anyway", "600")
    .action(async (options: StartOptions) => {
      const code = await runStart(options);
      // Everything is stopped, flushed and closed; idle keep-alive sockets must not hold the exit for seconds.
      process.exit(code);
    });
}

/** setTimeout's limit: a longer delay fires at once. */
const MAX_READY_TIMEOUT_S = 2_147_483;

/** --ready-timeout in ms: a positive number of seconds, else a typed error (exit 2) before anything starts. */
export function readyTimeoutMs(text: string): number {
  const seconds = text.trim() === "" ? Number.NaN : Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_READY_TIMEOUT_S) {
    throw new OpenclawRlError("BAD_REQUEST", `expected a positive number of seconds (at most ${MAX_READY_TIMEOUT_S}), got "${text}"`, {
      path: "--ready-timeout",
      hint: "e.g. --ready-timeout 900 (the default is 600)",
    });
  }
  return seconds * 1000;
}

async function runStart(options: StartOptions): Promise<number> {
  const readyTimeout = readyTimeoutMs(options.readyTimeout);
  const { recipe, file } = recipeFromOptions(options);
  const apiKey = process.env[recipe.proxy.api_key_env] || undefined;
  const runDir = path.resolve(recipe.records.dir);
  const terminal = (line: string) => process.stderr.write(`${line}\n`);

  const { plan, orchestrator, supervisor } = await launch({ recipe, runDir, apiKey, terminal, echoLines: options.followLogs === true });
  const stopped = stopOnSignals(orchestrator, supervisor, terminal);
  // a general-agent run whose planned episodes are done says so (it stays up: docs/episodes.md); a paused training too,
  // from the bus's history first (a pause recorded before a restart is said while the orchestrator starts)
  const say = (event: RunEvent) => {
    if (event.type === "episodes-done") terminal(episodesDoneLine(event, runDir));
    if (event.type === "training-paused") terminal(`⏸ training paused: ${event.message}; the proxy keeps serving. Resume: ${event.resume}`);
    if (event.type === "training-resumed") terminal(`▶ training resumed (${event.by})`);
  };
  for (const event of orchestrator.bus.recent()) say(event);
  orchestrator.bus.subscribe(say);
  startEngines(supervisor, plan, recipe, orchestrator);
  await supervisor.waitAllReady(readyTimeout);
  if (!stopped.requested()) {
    process.stdout.write(formatBanner({ recipe, recipeFile: file, runDir, urls: orchestrator.urls, apiKeySet: apiKey !== undefined, engines: supervisor.statuses(), notes: plan.notes }));
  }
  return stopped.done;
}

interface LaunchInput {
  recipe: Recipe;
  runDir: string;
  apiKey: string | undefined;
  terminal: (line: string) => void;
  echoLines: boolean;
}

/** The steps before the engines start; what a refusal or a failure leaves open is closed before it is thrown. */
async function launch(input: LaunchInput): Promise<{ plan: LaunchPlan; orchestrator: RunningOrchestrator; supervisor: Supervisor }> {
  const { recipe, runDir, terminal } = input;
  const opened = new ResourceStack({ onCloseError: ({ name, error }) => terminal(`! closing the ${name} failed: ${(error as Error).message}`) });
  try {
    const runId = newRunId();
    const bridge = await openBridge(recipe, runDir, opened);
    const plan = await buildLaunchPlan(recipe, runContext(runDir, runId, bridge), { strict: true });
    await checkBeforeStart(recipe, plan, runDir, terminal);
    createRunFolder(runDir, recipe);
    const engines = new EngineGate();
    const orchestrator = await startOrchestrator({ recipe, runDir, runId, apiKey: input.apiKey, bridge, engines: recipe.derived.engineUrls, readiness: engines.readiness });
    opened.push("orchestrator", () => orchestrator.stop());
    writeAdminEndpoint(runDir, orchestrator);
    writePlanFiles(plan);
    const supervisor = createSupervisor(runDir, orchestrator, engines, input);
    return { plan, orchestrator, supervisor };
  } catch (error) {
    await opened.closeAll();
    throw error;
  }
}

/** This run's id, the start time in UTC (20261124-101500); Ray's --submission-id is `openclaw-rl-<id>`. */
function newRunId(): string {
  return new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
}

/** The bridge's listener, bound before the plan is built (its address and token are in the plan); none with sink.kind jsonl. */
async function openBridge(recipe: Recipe, runDir: string, opened: ResourceStack): Promise<BridgeListener | null> {
  if (recipe.sink.kind === "jsonl") return null;
  const bridge = await BridgeListener.open({ host: bridgeHost(recipe), port: 0, recordsDir: runDir });
  opened.push("bridge", () => bridge.close());
  return bridge;
}

/** The checks against the plan: refuses with every failure, changes nothing (the bridge's listener is closed by the caller). */
async function checkBeforeStart(recipe: Recipe, plan: LaunchPlan, runDir: string, terminal: (line: string) => void): Promise<void> {
  const report = await checkStart({ recipe, plan, runDir, environment: process.env, packageRoot: PACKAGE_ROOT });
  for (const warning of report.warnings) terminal(`! ${warning}`);
  if (report.problems.length > 0) throw new OpenclawRlErrorList(report.problems);
}

/** Where `status` and `stop` find this run's status API, and whose it is. */
function writeAdminEndpoint(runDir: string, orchestrator: RunningOrchestrator): void {
  writeFileSync(path.join(runDir, ADMIN_ENDPOINT_FILE), JSON.stringify({ url: orchestrator.urls.admin, pid: process.pid }) + "\n");
}

function writePlanFiles(plan: LaunchPlan): void {
  for (const file of plan.files ?? []) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.content, { mode: file.mode ?? 0o644 });
  }
}

/** The supervisor, its engine states on the bus, handed to the gate the orchestrator asks. */
function createSupervisor(runDir: string, orchestrator: RunningOrchestrator, gate: EngineGate, input: LaunchInput): Supervisor {
  const supervisor = new Supervisor({
    runDir,
    baseEnvironment: process.env,
    terminal: input.terminal,
    echoLines: input.echoLines,
    onState: (name, state, detail) => orchestrator.bus.emit({ type: "engine-state", name, state, detail }),
  });
  gate.attach(supervisor);
  return supervisor;
}

/** Launches the plan's processes under the supervisor (readiness from the bridge's hello where slime runs). */
function startEngines(supervisor: Supervisor, plan: LaunchPlan, recipe: Recipe, orchestrator: RunningOrchestrator): void {
  // every supervised engine (an external one's endpoint too) is on the screens from the start, in launch order, so the
  // order never depends on which answered first (a child that waits for another says so itself later)
  const children = defineChildren(plan, recipe, { bridgeHello: () => orchestrator.bridgeHello(), baseEnvironment: process.env });
  for (const child of children) orchestrator.bus.emit({ type: "engine-state", name: child.name, state: "starting", detail: "planned" });
  void supervisor.start(children);
}

/** What the plan needs besides the recipe: this run's folder and id, and the bridge's address and token. */
function runContext(runDir: string, runId: string, bridge: BridgeListener | null): PlanContext {
  return { packageRoot: PACKAGE_ROOT, runDir, environment: process.env, runId, bridgeUrl: bridge?.url ?? "", bridgeToken: bridge?.token ?? "" };
}

/** SIGINT / SIGTERM: ordered stop; a second signal forces. `done` resolves with the exit code once stopped. */
function stopOnSignals(orchestrator: RunningOrchestrator, supervisor: Supervisor, terminal: (line: string) => void) {
  let requested = false;
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (resolveDone = resolve));
  let exitCode = 0;
  const stop = (reason: string) => {
    if (requested) return;
    requested = true;
    terminal(`· stopping (${reason}): no new requests, finishing in-flight turns, flushing samples, then the engines; Ctrl-C again to force`);
    supervisor.beginShutdown();
    void orchestrator
      .stop({ engines: () => supervisor.stop().then(printReport) })
      .then(() => finish());
  };
  const force = () => {
    terminal("· forced stop: killing the engines now");
    void supervisor.stop({ force: true }).then(printReport).then(() => finish());
  };
  const printReport = (report: StopReport) => {
    for (const result of report.results) terminal(`  ${result.ok ? "·" : "✗"} ${result.summary}`);
  };
  const finish = () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    terminal("· stopped");
    resolveDone(exitCode);
  };
  const onSignal = (signal: NodeJS.Signals) => (requested ? force() : stop(signal));
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  orchestrator.bus.subscribe((event) => {
    if (event.type === "engine-state" && event.state === "failed" && !requested) {
      exitCode = 1;
      terminal(`✗ ${event.name} failed: ${event.detail}`);
      stop(`${event.name} failed`);
    }
  });
  return { done, requested: () => requested };
}
