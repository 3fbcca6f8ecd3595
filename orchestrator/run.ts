// Composition of the running orchestrator, as named steps that each push what they open onto one ResourceStack;
// stop() closes that stack, so the stop order is the start order reversed: episodes → evaluation → proxy → judge → sink → bridge → weight
// watcher → engines → status API → the training pause's record. Owns the order and the wiring; each part's behaviour is in its own file.
// Just over 400 lines: the wiring of each step (episodes with their budget, evaluation) is kept beside the order it
// belongs to; moving a step's wiring out is the next split when one grows (episodes' is the largest).
import { setMaxListeners } from "node:events";
import path from "node:path";
import type { BridgeHello } from "../contracts/bridge.ts";
import { environmentUrl, type Recipe } from "../contracts/recipe.ts";
import type { SampleSink } from "../contracts/sample-sink.ts";
import { ChatTemplate } from "../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../lib/model/model-files.ts";
import { parserNames, resolveFamily } from "../lib/model/model-family.ts";
import { ModelTokenizer } from "../lib/model/model-tokenizer.ts";
import { judgeTokenizerSource, policyTokenizerSource } from "../lib/model/tokenizer-sources.ts";
import { ResourceStack, type CloseFailure } from "../lib/resource-stack.ts";
import { SwitchableClient } from "../lib/sglang/switchable-client.ts";
import { BridgeListener } from "./bridge/bridge-listener.ts";
import { environmentClient } from "./episodes/environment-protocols.ts";
import { EpisodeDriver, type EpisodeResult } from "./episodes/episode-driver.ts";
import { RolloutBudget } from "./episodes/rollout-budget.ts";
import { episodeTasksFile, readTasks } from "./episodes/task-file.ts";
import { sleepUnlessAborted } from "../lib/abortable-sleep.ts";
import { BridgeServer, bridgeHost } from "./bridge/bridge-server.ts";
import { RESUME_ROUTE, TrainingPause } from "./bridge/training-pause.ts";
import { PauseRecordFile } from "./bridge/training-pause-record.ts";
import { cliCommand, shellWord } from "../lib/cli-command.ts";
import { EventBus } from "./event-bus.ts";
import { ContinuousEvaluation } from "./evaluation/continuous-evaluation.ts";
import { evaluationBasis } from "./evaluation/evaluation-basis.ts";
import { buildEvaluationPlan, readEvaluationSet } from "./evaluation/evaluation-plan.ts";
import { JudgeThread } from "./judging/judge-thread.ts";
import { createProxy, type Proxy } from "./proxy/proxy-server.ts";
import { announceSamples } from "./sinks/announcing-sink.ts";
import { JsonlSink } from "./sinks/jsonl-sink.ts";
import { AdminServer } from "./status/admin-server.ts";
import { createAdminToken } from "./status/admin-token.ts";
import { createDashboardRoutes } from "./status/dashboard/dashboard-routes.ts";
import { RunTally } from "./status/run-tally.ts";
import type { StatusSnapshot } from "../contracts/status.ts";
import type { RunEventInput } from "../contracts/events.ts";
import { versionMetricsSchema, type VersionMetrics } from "../contracts/evaluation.ts";
import { StatusTracker } from "./status/status-tracker.ts";
import { followBus } from "./status/tally-feed.ts";
import { TrainerWatchdog } from "./status/trainer-watchdog.ts";
import { CheckpointWatcher } from "./checkpoints/checkpoint-watcher.ts";
import { SampleStore } from "./store/sample-store.ts";
import { readEngineVersions } from "./weights/engine-weight-versions.ts";
import { StalenessPolicy } from "./weights/staleness-policy.ts";
import { resetVersionsForTrainerRestart } from "./weights/trainer-restart.ts";
import { versionLabels } from "./weights/version-labels.ts";
import { WeightUpdateWatcher } from "./weights/weight-update-watcher.ts";
import { EVALUATION_RECORDED_ROUTE, evaluationDoneEvent } from "./evaluation/evaluation-announcement.ts";
import { WeightVersionTracker } from "./weights/weight-version-tracker.ts";

export interface Readiness {
  ready: boolean;
  reason: string;
  retryAfterS: number;
}

export interface OrchestratorOptions {
  recipe: Recipe;
  runDir: string;
  /** This run's id (start's): the `uid` of the episodes it drives, so two runs' episode ids never meet. */
  runId?: string;
  /** The proxy's Bearer key (read from recipe.proxy.api_key_env by the CLI). */
  apiKey: string | undefined;
  /** Engine base URLs; null = the router slime announces in its bridge hello. */
  engines: { policy: string | null; judge: string | null };
  /** The traffic gate (the supervisor's); asked on every request. */
  readiness: () => Readiness;
  /** The bridge's listener when `start` bound it before building the launch plan; bound here when absent (sink.kind bridge). */
  bridge?: BridgeListener | null;
  /** Port overrides (tests use 0). */
  ports?: { proxy?: number; admin?: number };
  judgeDrainMs?: number;
  proxyGraceMs?: number;
}

export interface RunningOrchestrator {
  bus: EventBus;
  status: StatusTracker;
  adminToken: string;
  urls: { proxy: string; admin: string; dashboard: string; bridge: string | null };
  bridgeToken: string | null;
  /** The latest rollout-function hello (null before any). */
  bridgeHello(): BridgeHello | null;
  /** Stops everything in order; `engines` runs after the bridge closes and before the status server does. */
  stop(options?: { engines?: () => Promise<unknown> }): Promise<void>;
}

/** What every step is given: the options, the bus, the one weight-version owner, the training pause and the one stack of things to close. */
interface Run {
  options: OrchestratorOptions;
  recipe: Recipe;
  runDir: string;
  bus: EventBus;
  weights: WeightVersionTracker;
  /** evaluation.stop_if_worse pauses it, the bridge obeys it, POST /training/resume ends it. */
  pause: TrainingPause;
  stack: ResourceStack;
}

interface OpenedSink {
  /** The sink judging puts samples into (announced on the bus as sample-ready). */
  announced: SampleSink;
  store: SampleStore | null;
  bridge: BridgeServer | null;
  endpoint: { url: string; token: string } | null;
}

interface PolicyModel {
  tokenizer: ModelTokenizer;
  template: ChatTemplate;
  parsers: { toolCallParser: string | null; reasoningParser: string | null };
}

export async function startOrchestrator(options: OrchestratorOptions): Promise<RunningOrchestrator> {
  const run = beginRun(options);
  try {
    await run.pause.restoreRecorded(); // (before the bridge hands out anything; a damaged record fails the start)
    const statusApi = reserveStatusApi(run);
    const stop = placeEngineStop(run);
    const policy = connectPolicy(run);
    watchWeights(run, policy);
    const sink = await openSampleSink(run);
    const judgingStarted = startJudging(run, sink.announced);
    const policyModel = await loadPolicyModel(run.recipe); // (while judging loads its own tokenizers on its thread)
    const judging = await judgingStarted;
    followRouters(run, sink.bridge, policy, judging);
    const proxy = await startProxy(run, policy, policyModel, judging);
    const baseEvaluated = await startEvaluation(run, proxy.url, sink.bridge);
    await startEpisodes(run, proxy.url, sink.store, baseEvaluated);
    const status = await startStatusApi(run, statusApi, proxy, sink);
    return { bus: run.bus, ...status, bridgeToken: sink.endpoint?.token ?? null, bridgeHello: () => sink.bridge?.hello() ?? null, stop };
  } catch (error) {
    await run.stack.closeAll();
    throw error;
  }
}

/** The bus, the weight-version owner, and the stack whose close failures are reported on the bus. */
function beginRun(options: OrchestratorOptions): Run {
  const bus = new EventBus();
  const stack = new ResourceStack({ onCloseError: reportTo(bus) });
  const resumeHint = `\`${cliCommand(`resume-training --run ${shellWord(options.runDir)}`)}\` (or POST ${RESUME_ROUTE} on the admin API)`;
  const pause = new TrainingPause(bus, resumeHint, new PauseRecordFile(options.runDir));
  stack.push("training pause record", () => pause.recorded());
  return { options, recipe: options.recipe, runDir: options.runDir, bus, weights: new WeightVersionTracker(0), pause, stack };
}

/** The status API stays up until the engines have stopped, so its place is first on the stack; it fills it when it starts. */
function reserveStatusApi(run: Run): ResourceStack {
  const parts = new ResourceStack({ onCloseError: reportTo(run.bus) });
  run.stack.push("status API", () => parts.closeAll());
  return parts;
}

/** The engines stop after the bridge has closed and before the status API does; stop() is told how (the supervisor's stop). */
function placeEngineStop(run: Run): RunningOrchestrator["stop"] {
  let stopEngines: (() => Promise<unknown>) | undefined;
  run.stack.push("supervisor", () => stopEngines?.());
  return async (stopOptions = {}) => {
    stopEngines ??= stopOptions.engines;
    await run.stack.closeAll();
  };
}

/** The policy engines' client: the recipe's URL, or (slime) none until the rollout function announces its router. */
function connectPolicy(run: Run): SwitchableClient {
  return new SwitchableClient(run.options.engines.policy, run.recipe.proxy.request_timeout_s * 1000);
}

/** Polls the policy engines' weight version into the owner; the router slime announces has no version route (engine-weight-versions.ts). */
function watchWeights(run: Run, policy: SwitchableClient): void {
  const readVersion = async () => (await readEngineVersions(policy.client.baseUrl)).version;
  const watcher = new WeightUpdateWatcher({ bus: run.bus, tracker: run.weights, readVersion });
  run.stack.push("weights", () => watcher.stop());
  watcher.start();
  void watcher.poll();
}

/** Where judged samples go: the durable store behind the bridge slime reads (its listener closes after the store), or a JSONL file. */
async function openSampleSink(run: Run): Promise<OpenedSink> {
  const { recipe, runDir, bus } = run;
  const batchSize = recipe.training.batch_size;
  if (recipe.sink.kind === "jsonl") {
    const file = new JsonlSink(path.resolve(runDir, recipe.sink.path!));
    run.stack.push("store", () => file.close());
    return { announced: announceSamples(file, bus, batchSize, () => null), store: null, bridge: null, endpoint: null };
  }
  const listener = run.options.bridge ?? (await BridgeListener.open({ host: bridgeHost(recipe), port: 0, recordsDir: runDir }));
  run.stack.push("bridge", () => listener.close()); // (ends the bridge's long-polls with their connections)
  const store = await SampleStore.open(path.join(runDir, "store"), {
    staleness: new StalenessPolicy(run.weights, recipe.training.max_staleness),
    fairBatch: { maxSessionShare: recipe.training.fair_batch.max_session_share, relaxAfterMs: recipe.training.fair_batch.relax_after_s * 1000 },
  });
  run.stack.push("store", () => store.close());
  announceStore(store, bus);
  const bridge = new BridgeServer({
    store,
    bus,
    recordsDir: runDir,
    pause: run.pause,
    maxWaitMs: recipe.training.max_wait_s * 1000,
    // slime started again (its rollout function is a new process): its weight versions count from 0 again
    onClientReplaced: ({ previous, current }) =>
      resetVersionsForTrainerRestart(run.weights, bus, `slime's rollout function is a new process (pid ${previous.pid} → ${current.pid}): slime restarted, its weight versions count from 0 again`),
  });
  const endpoint = await bridge.serve(listener);
  watchTrainer(run, () => store.counts().ready, () => bridge.holdingBatches());
  return { announced: announceSamples(store, bus, batchSize, () => store.counts().ready), store, bridge, endpoint };
}

/** What the records folder's store holds as this run begins (samples earlier runs left ready, batches still out, its totals). */
function announceStore(store: SampleStore, bus: EventBus): void {
  const { ready, acknowledged, droppedStale } = store.counts();
  const outstanding = store.outstanding().map(({ batchId, size }) => ({ batchId, size }));
  bus.emit({ type: "store-opened", ready, outstanding, acknowledged, droppedStale });
}

/** Checkpoints listed and pruned from slime's save folder; a trainer that stops making progress reported. */
function watchTrainer(run: Run, ready: () => number, holding: () => boolean): void {
  const { recipe, runDir, bus } = run;
  const checkpoints = new CheckpointWatcher({ bus, saveDir: path.resolve(runDir, recipe.training.save_dir), keep: recipe.training.keep_checkpoints });
  const watchdog = new TrainerWatchdog({ bus, ready, paused: () => run.pause.paused() || holding(), batchSize: recipe.training.batch_size, stallAfterMs: recipe.training.stall_after_s * 1000 });
  run.stack.push("trainer watch", () => {
    checkpoints.stop();
    watchdog.stop();
  });
  checkpoints.start();
  watchdog.start();
}

/** Judging on its own thread: it loads its tokenizers while this thread loads the policy's (awaited by the caller). */
function startJudging(run: Run, samples: SampleSink): Promise<JudgeThread> {
  const { recipe, runDir, bus, options } = run;
  const started = JudgeThread.start({
    data: { recipe, recordsDir: runDir, policySource: policyTokenizerSource(recipe).path, judgeSource: judgeTokenizerSource(recipe).path, judgeUrl: options.engines.judge },
    bus,
    sink: samples,
    versions: run.weights,
  });
  started.catch(() => undefined); // (awaited by the caller; a failure before then is reported by what failed first)
  run.stack.push("judge", async () => (await started.catch(() => null))?.drain(options.judgeDrainMs ?? 15_000));
  return started;
}

/** The policy's tokenizer, chat template and parsers (its family's). */
async function loadPolicyModel(recipe: Recipe): Promise<PolicyModel> {
  const files = await loadTokenizerFiles(policyTokenizerSource(recipe).path);
  const { sglang } = await resolveFamily(recipe);
  return { tokenizer: new ModelTokenizer(files), template: new ChatTemplate(files), parsers: parserNames(recipe.model, sglang) };
}

/** Re-points the policy client and the judge at the routers slime announces in each hello (when the recipe names none). */
function followRouters(run: Run, bridge: BridgeServer | null, policy: SwitchableClient, judging: JudgeThread): void {
  const point = (hello: BridgeHello): void => {
    if (run.options.engines.policy === null && hello.routers.policy) policy.point(hello.routers.policy);
    if (run.options.engines.judge === null && hello.routers.judge) judging.pointJudge(hello.routers.judge);
  };
  const earlier = bridge?.hello();
  if (earlier) point(earlier);
  bridge?.onHello(point);
}

/** The OpenAI-compatible proxy: turns to the policy engines, closed turns and feedback to judging, versions seen to the owner. */
async function startProxy(run: Run, policy: SwitchableClient, model: PolicyModel, judging: JudgeThread): Promise<{ proxy: Proxy; url: string }> {
  const { recipe, runDir, bus, options } = run;
  const proxy = createProxy({
    recipe,
    policy: policy.client,
    tokenizer: model.tokenizer,
    template: model.template,
    parsers: model.parsers,
    bus,
    onTurnClosed: (turn) => judging.onTurnClosed(turn),
    onFeedback: (body, headers) => judging.handleFeedback(body, headers),
    versions: run.weights,
    readiness: options.readiness,
    apiKey: options.apiKey,
    recordsDir: runDir,
  });
  run.stack.push("proxy", () => proxy.close(options.proxyGraceMs ?? 10_000));
  const address = await proxy.listen(options.ports?.proxy ?? recipe.proxy.port, recipe.proxy.host);
  return { proxy, url: `http://${displayHost(address.host)}:${address.port}/v1` };
}

/**
 * Episodes against the environment server (episodes.env_url, or the built-in one the supervisor runs), through the
 * proxy like any harness (episode-driver.ts), in the background: it waits for the environment's /healthz and for the
 * engines, starts a task group only when its samples can be trained before they go stale (rollout-budget.ts, with the
 * sample store), says when every planned episode is done, and is stopped first (its leases closed) when the run
 * stops. Off when the recipe names no environment. With continuous evaluation, episodes wait for the base's
 * evaluation (`baseEvaluated`), so the base is untrained.
 */
async function startEpisodes(run: Run, proxyUrl: string, store: SampleStore | null, baseEvaluated: () => boolean): Promise<void> {
  const { recipe, runDir, bus, options } = run;
  const episodes = recipe.episodes;
  const url = environmentUrl(recipe);
  const tasksFile = episodeTasksFile(episodes);
  if (url === null || tasksFile === null) return;
  const tasks = await readTasks(tasksFile); // (a bad task file fails the start, naming the line)
  const stop = new AbortController();
  // every worker waits on it (engines, budget, a request and its retries at once): a few listeners each, not a leak
  setMaxListeners(10 + 4 * episodes.concurrency, stop.signal);
  const environment = environmentClient(episodes.env_protocol, url, { signal: stop.signal });
  const budget = store ? followBudget(run, store) : null;
  const driver = new EpisodeDriver({
    proxyUrl: proxyUrl.replace(/\/v1$/, ""),
    apiKey: options.apiKey,
    model: recipe.model.served_name,
    environment,
    tasks,
    samplesPerTask: episodes.samples_per_task,
    maxSteps: episodes.max_steps,
    concurrency: episodes.concurrency,
    epochs: episodes.epochs,
    contextTokens: recipe.model.context_length - recipe.model.max_response_tokens,
    uid: options.runId ?? `${path.basename(runDir)}-${Date.now().toString(36)}`,
    ready: () => options.readiness().ready && baseEvaluated(),
    ...(budget ? { admitGroup: (question) => budget.mayStartGroup(question) } : {}),
    onPlan: (planned) => bus.emit({ type: "episodes-planned", planned, tasks: tasks.length, samplesPerTask: episodes.samples_per_task, epochs: episodes.epochs }),
    // every episode ends visibly: one that failed at allocate or reset is counted failed, and its reason said
    onFailedBeforeSteps: (result) => {
      const failure = result.failure ?? "the episode failed before its first step";
      bus.emit({ type: "episode-end", episodeId: result.episodeId, groupId: result.groupId, score: null, failure, steps: 0, weightVersion: null });
      bus.emit({ type: "error", source: "episodes", code: "ENVIRONMENT_ERROR", message: `${result.episodeId}: ${failure}` });
    },
    signal: stop.signal,
  });
  const running = (async () => {
    for (let waited = 0; !(await environment.healthy()); waited += 1) {
      if (waited === 30) bus.emit({ type: "error", source: "episodes", code: "ENVIRONMENT_ERROR", message: `the environment server at ${url} has not answered GET /healthz for 30 s; episodes wait for it` });
      if (!(await sleepUnlessAborted(1000, stop.signal))) return;
    }
    const results = await driver.run();
    if (!stop.signal.aborted) bus.emit(episodesDone(tasks.length * episodes.samples_per_task * episodes.epochs, results));
  })().catch((error: unknown) => void bus.emit({ type: "error", source: "episodes", code: "ENVIRONMENT_ERROR", message: (error as Error).message }));
  run.stack.push("episodes", async () => {
    stop.abort();
    await running;
  });
}

/** The rollout budget over the store, told of every episode's end and every judged step (from the bus). */
function followBudget(run: Run, store: SampleStore): RolloutBudget {
  const budget = new RolloutBudget({ staleness: store.staleness, batchSize: run.recipe.training.batch_size, ready: () => store.counts().ready });
  const unsubscribe = run.bus.subscribe((event) => {
    if (event.type === "episode-end") budget.episodeEnded(event.episodeId, event.steps);
    else if (event.type === "turn-judged") budget.stepJudged(event.sessionId);
  });
  run.stack.push("rollout budget", async () => unsubscribe());
  return budget;
}

function episodesDone(planned: number, results: readonly EpisodeResult[]): Extract<RunEventInput, { type: "episodes-done" }> {
  const scores = results.flatMap((result) => (result.score === null ? [] : [result.score]));
  const outcomeRate = scores.length > 0 ? scores.reduce((sum, score) => sum + score, 0) / scores.length : null;
  return { type: "episodes-done", planned, scored: scores.length, failed: results.length - scores.length, outcomeRate };
}

/**
 * Continuous held-out evaluation (evaluation.every_versions > 0; docs/evaluation.md): the live version once the
 * engines are ready, then every N versions, through the proxy as side turns, scored by the judge engine (the recipe's,
 * or the router slime announces). Stopped before the proxy closes.
 */
async function startEvaluation(run: Run, proxyUrl: string, bridge: BridgeServer | null): Promise<() => boolean> {
  const { recipe, runDir, bus, options } = run;
  if (recipe.evaluation.every_versions === 0) return () => true;
  const set = await readEvaluationSet(recipe); // (a bad persona file, or a held-out task that is trained on, fails the start)
  const judgeUrl = () => options.engines.judge ?? bridge?.hello()?.routers.judge ?? null;
  const evaluation = new ContinuousEvaluation({
    bus,
    weights: run.weights,
    everyVersions: recipe.evaluation.every_versions,
    recordsDir: runDir,
    run: options.runId ?? null,
    basis: evaluationBasis(recipe, set),
    ready: () => options.readiness().ready,
    onDrop: recipe.evaluation.stop_if_worse ? (drop, message) => run.pause.pauseFor(drop, message) : undefined,
    plan: () => {
      const judge = judgeUrl();
      return judge === null ? null : buildEvaluationPlan(recipe, set, { proxyUrl, apiKey: options.apiKey, judgeUrl: judge });
    },
  });
  run.stack.push("evaluation", () => evaluation.close());
  // the base is the base weights: nothing trains until it is evaluated (or its evaluation failed)
  bridge?.holdWhile(() => !evaluation.baseDone());
  evaluation.start();
  return () => evaluation.baseDone();
}

/** The status API (status, the event stream, the dashboard); its parts go into the place reserved for them, so they close last. */
async function startStatusApi(run: Run, parts: ResourceStack, proxy: { proxy: Proxy; url: string }, sink: OpenedSink) {
  const { recipe, runDir, bus, options } = run;
  const adminToken = createAdminToken(runDir);
  const urls = { proxy: proxy.url, admin: "", dashboard: "", bridge: sink.endpoint?.url ?? null };
  // one fold of the run's events, read by status and the dashboard alike
  const tally = new RunTally(recipe.training.batch_size, {}, { runId: options.runId });
  const unfollow = followBus(bus, tally);
  const status = new StatusTracker(bus, recipe, { readiness: options.readiness, endpoints: () => urls }, tally);
  const admin = new AdminServer({ bus, token: adminToken, snapshot: () => status.snapshot(), actions: {
    // answered once the run folder's record of the pause is gone too (a restart right after does not pause again)
    [RESUME_ROUTE]: {
      run: async () => {
        const result = run.pause.resume(`POST ${RESUME_ROUTE}`);
        await run.pause.recorded();
        return result;
      },
    },
    // `openclaw-rl eval` beside this start: its live version's result joins the screens as continuous evaluation's do
    [EVALUATION_RECORDED_ROUTE]: {
      body: versionMetricsSchema,
      run: (body) => {
        const metrics = body as VersionMetrics; // (parsed by versionMetricsSchema before it gets here)
        bus.emit(evaluationDoneEvent(metrics));
        return { announced: metrics.version };
      },
    },
  } });
  const dashboard = createDashboardRoutes({
    bus, recordsDir: runDir, token: adminToken, method: recipe.method, batchSize: recipe.training.batch_size, versionLabelNote: versionLabels(recipe).note, tally,
    sessionIdleTimeoutS: recipe.proxy.session_idle_timeout_s, evaluationEveryVersions: recipe.evaluation.every_versions,
  });
  admin.mount(dashboard);
  parts.push("admin", () => admin.close());
  parts.push("status", () => {
    status.close();
    unfollow();
  });
  parts.push("dashboard", () => dashboard.close());
  const address = await admin.listen(options.ports?.admin ?? recipe.proxy.admin_port);
  urls.admin = address.url;
  urls.dashboard = `${address.url}${dashboard.basePath}/?token=${adminToken}`;
  return { status, adminToken, urls };
}

function displayHost(host: string): string {
  return host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
}

function reportTo(bus: EventBus) {
  return ({ name, error }: CloseFailure) => void bus.emit({ type: "error", source: name, code: "INTERNAL", message: `stop: ${(error as Error).message}` });
}
