// `openclaw-rl start`: validate → preflight → run folder → orchestrator (proxy, judge, store, bridge, status) →
// launch plan → supervised engines → one banner → wait for Ctrl-C / SIGTERM (a second one forces) → ordered stop.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { OpenclawRlError, OpenclawRlErrorList } from "../../contracts/errors.ts";
import type { LaunchPlan, PlanContext } from "../../contracts/plan.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { buildLaunchPlan } from "../../launchers/launch-plan.ts";
import { runPreflight } from "../../launchers/preflight/preflight.ts";
import { defineChildren } from "../../launchers/supervisor/child-definitions.ts";
import { Supervisor, type StopReport } from "../../launchers/supervisor/supervisor.ts";
import { startOrchestrator, type RunningOrchestrator } from "../../orchestrator/run.ts";
import { ADMIN_ENDPOINT_FILE } from "../../orchestrator/status/admin-token.ts";
import { recipeFromOptions, withRecipeOptions, type CommonOptions } from "../common-options.ts";
import { PACKAGE_ROOT } from "../recipe-file.ts";
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
  const runId = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
  const terminal = (line: string) => process.stderr.write(`${line}\n`);

  await checkBeforeStart(recipe, runDir, runId, terminal);
  createRunFolder(runDir, recipe);
  let supervisor: Supervisor | undefined;
  const orchestrator = await startOrchestrator({
    recipe,
    runDir,
    apiKey,
    engines: engineEndpoints(recipe),
    readiness: () => supervisor?.trafficGate() ?? { ready: false, reason: "engines are starting", retryAfterS: 5 },
    engineStates: () => supervisor?.statuses().map(({ name, state, detail }) => ({ name, state, detail })) ?? [],
  });
  writeFileSync(path.join(runDir, ADMIN_ENDPOINT_FILE), JSON.stringify({ url: orchestrator.urls.admin, pid: process.pid }) + "\n");
  const plan = await buildLaunchPlan(recipe, runContext(recipe, runDir, runId, orchestrator), { strict: true });
  writePlanFiles(plan);
  supervisor = new Supervisor({
    runDir,
    baseEnvironment: process.env,
    terminal,
    echoLines: options.followLogs === true,
    onState: (name, state, detail) => orchestrator.bus.emit({ type: "engine-state", name, state, detail }),
  });
  const stopped = stopOnSignals(orchestrator, supervisor, terminal);
  void supervisor.start(defineChildren(plan, recipe, { bridgeHello: () => orchestrator.bridgeHello(), baseEnvironment: process.env }));
  await supervisor.waitAllReady(readyTimeout);
  if (!stopped.requested()) {
    process.stdout.write(formatBanner({ recipe, recipeFile: file, runDir, urls: orchestrator.urls, apiKeySet: apiKey !== undefined, engines: supervisor.statuses(), notes: plan.notes }));
  }
  return stopped.done;
}

/** Preflight against a draft plan (the bridge is not up yet): refuses with every problem, changes nothing. */
async function checkBeforeStart(recipe: Recipe, runDir: string, runId: string, terminal: (line: string) => void): Promise<void> {
  const draft = await buildLaunchPlan(recipe, { ...runContextBase(runDir, runId), bridgeUrl: "http://127.0.0.1:0", bridgeToken: "preflight" }, { strict: true });
  if (draft.engine === "rehearsal" && draft.processes.length === 0) {
    throw new OpenclawRlError("ENGINE_UNSUPPORTED", draft.notes.join("; ") || "the rehearsal engine has no processes", { path: "engine.kind" });
  }
  const report = await runPreflight({ recipe, plan: draft, runDir, environment: process.env, packageRoot: PACKAGE_ROOT });
  for (const warning of report.warnings) terminal(`! ${warning}`);
  if (report.problems.length > 0) throw new OpenclawRlErrorList(report.problems);
}

function writePlanFiles(plan: LaunchPlan): void {
  for (const file of plan.files ?? []) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.content, { mode: file.mode ?? 0o644 });
  }
}

/** Where the orchestrator reaches the engines; null = the router slime announces on the bridge. */
export function engineEndpoints(recipe: Recipe): { policy: string | null; judge: string | null } {
  const loopback = (port: number) => `http://127.0.0.1:${port}`;
  switch (recipe.engine.kind) {
    case "rehearsal":
      return { policy: loopback(recipe.engine.rehearsal.policy_port), judge: loopback(recipe.engine.rehearsal.judge_port) };
    case "external":
      return { policy: recipe.engine.policy_url!, judge: recipe.judge.url ?? recipe.engine.judge_url ?? null };
    case "slime":
      if (recipe.judge.launch === "standalone") return { policy: null, judge: loopback(recipe.judge.port) };
      if (recipe.judge.launch === "external") return { policy: null, judge: recipe.judge.url ?? recipe.engine.judge_url ?? null };
      return { policy: null, judge: null };
  }
}

function runContextBase(runDir: string, runId: string): Omit<PlanContext, "bridgeUrl" | "bridgeToken"> {
  return { packageRoot: PACKAGE_ROOT, runDir, environment: process.env, runId };
}

function runContext(recipe: Recipe, runDir: string, runId: string, orchestrator: RunningOrchestrator): PlanContext {
  void recipe;
  return { ...runContextBase(runDir, runId), bridgeUrl: orchestrator.urls.bridge ?? "", bridgeToken: orchestrator.bridgeToken ?? "" };
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
