// Composition of the running orchestrator, as named steps that each push what they open onto one ResourceStack;
// stop() closes that stack, so the stop order is the start order reversed: episodes → evaluation → proxy → judge → sink → bridge → weight
// watcher → engines → status API → the training pause's record. Owns the order and the small steps; the larger ones are in run/.
import type { BridgeHello } from "../contracts/bridge.ts";
import type { Recipe } from "../contracts/recipe.ts";
import type { SampleSink } from "../contracts/sample-sink.ts";
import { ChatTemplate } from "../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../lib/model/model-files.ts";
import { parserNames, resolveFamily } from "../lib/model/model-family.ts";
import { ModelTokenizer } from "../lib/model/model-tokenizer.ts";
import { judgeTokenizerSource, policyTokenizerSource } from "../lib/model/tokenizer-sources.ts";
import { SwitchableClient } from "../lib/sglang/switchable-client.ts";
import type { BridgeServer } from "./bridge/bridge-server.ts";
import type { EventBus } from "./event-bus.ts";
import { ContinuousEvaluation } from "./evaluation/continuous-evaluation.ts";
import { evaluationBasis } from "./evaluation/evaluation-basis.ts";
import { buildEvaluationPlan, readEvaluationSet } from "./evaluation/evaluation-plan.ts";
import { JudgeThread } from "./judging/judge-thread.ts";
import { createProxy, type Proxy } from "./proxy/proxy-server.ts";
import { startEpisodes } from "./run/background-episodes.ts";
import { openSampleSink } from "./run/opened-sink.ts";
import { beginRun, type OrchestratorOptions, type Run } from "./run/run-context.ts";
import { reserveStatusApi, startStatusApi } from "./run/status-api.ts";
import type { StatusTracker } from "./status/status-tracker.ts";
import { readEngineVersions } from "./weights/engine-weight-versions.ts";
import { WeightUpdateWatcher } from "./weights/weight-update-watcher.ts";

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
    const status = await startStatusApi(run, statusApi, { proxy: proxy.url, bridge: sink.endpoint?.url ?? null });
    return { bus: run.bus, ...status, bridgeToken: sink.endpoint?.token ?? null, bridgeHello: () => sink.bridge?.hello() ?? null, stop };
  } catch (error) {
    await run.stack.closeAll();
    throw error;
  }
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

function displayHost(host: string): string {
  return host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
}
