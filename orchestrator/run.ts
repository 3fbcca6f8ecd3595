// Composition of the running orchestrator: the policy's tokenizer and chat template, SGLang clients (re-pointed at
// the routers slime announces on the bridge), the sample store + bridge or a JSONL sink, the weight-version
// tracker, judging on its own thread, the proxy and the admin/status server (with the dashboard mounted). One
// stop() in the order: stop taking requests → drain the judge → flush the sink → close the bridge → engines → status.
import path from "node:path";
import type { BridgeHello } from "../contracts/bridge.ts";
import type { Recipe } from "../contracts/recipe.ts";
import { judgePath } from "../contracts/recipe.ts";
import type { SampleSink } from "../contracts/sample-sink.ts";
import { BridgeServer, bridgeHost } from "./bridge/bridge-server.ts";
import { SwitchableClient } from "../lib/sglang/switchable-client.ts";
import { EventBus } from "./event-bus.ts";
import { createProxy } from "./proxy/proxy-server.ts";
import { JudgeThread } from "./judging/judge-thread.ts";
import { announceSamples } from "./sinks/announcing-sink.ts";
import { JsonlSink } from "./sinks/jsonl-sink.ts";
import { StalenessPolicy } from "./weights/staleness-policy.ts";
import { resetVersionsForTrainerRestart } from "./weights/trainer-restart.ts";
import { WeightVersionTracker } from "./weights/weight-version-tracker.ts";
import { createDashboardRoutes } from "./status/dashboard/dashboard-routes.ts";
import { AdminServer } from "./status/admin-server.ts";
import { createAdminToken } from "./status/admin-token.ts";
import { readEngineVersions } from "./weights/engine-weight-versions.ts";
import type { StatusSnapshot } from "./status/status-snapshot.ts";
import { StatusTracker } from "./status/status-tracker.ts";
import { versionLabels } from "./weights/version-labels.ts";
import { WeightUpdateWatcher } from "./weights/weight-update-watcher.ts";
import { SampleStore } from "./store/sample-store.ts";
import { ChatTemplate } from "../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../lib/model/model-files.ts";
import { ModelTokenizer } from "../lib/model/model-tokenizer.ts";

export interface Readiness {
  ready: boolean;
  reason: string;
  retryAfterS: number;
}

export interface OrchestratorOptions {
  recipe: Recipe;
  runDir: string;
  /** The proxy's Bearer key (read from recipe.proxy.api_key_env by the CLI). */
  apiKey: string | undefined;
  /** Engine base URLs; null = the router slime announces in its bridge hello. */
  engines: { policy: string | null; judge: string | null };
  /** The traffic gate (the supervisor's); asked on every request. */
  readiness: () => Readiness;
  /** The supervised engines' states in launch order (the supervisor's). */
  engineStates?: () => StatusSnapshot["engines"];
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

export async function startOrchestrator(options: OrchestratorOptions): Promise<RunningOrchestrator> {
  const { recipe, runDir } = options;
  const bus = new EventBus();
  const versions = new WeightVersionTracker(0); // the one weight-version owner: the proxy, the watcher and the bridge feed it
  const policySource = recipe.model.tokenizer_path ?? recipe.model.path;
  // Judging runs on its own thread, off the proxy's event loop. It loads its tokenizers while this thread loads the
  // policy's; its samples go to the sink set up below (none can come before the proxy has served a turn).
  let announcingSink: SampleSink | null = null;
  const judgingStart = JudgeThread.start({
    data: { recipe, recordsDir: runDir, policySource, judgeSource: recipe.judge.tokenizer_path ?? judgePath(recipe), judgeUrl: options.engines.judge },
    bus,
    sink: { put: (sample) => announcingSink!.put(sample), close: async () => undefined },
    versions,
  });
  judgingStart.catch(() => undefined); // (awaited below; a failure before then is reported by what failed first)

  let store: SampleStore | null = null;
  let bridge: BridgeServer | null = null;
  let bridgeEndpoint: { url: string; token: string } | null = null;
  let sink: SampleSink | null = null;
  let policyTokenizer: ModelTokenizer;
  let policyTemplate: ChatTemplate;
  let judging: JudgeThread;
  try {
    const policyFiles = await loadTokenizerFiles(policySource);
    policyTokenizer = new ModelTokenizer(policyFiles);
    policyTemplate = new ChatTemplate(policyFiles);
    if (recipe.sink.kind === "jsonl") {
      sink = new JsonlSink(path.resolve(runDir, recipe.sink.path!));
    } else {
      store = await SampleStore.open(path.join(runDir, "store"), { staleness: new StalenessPolicy(versions, recipe.training.max_staleness) });
      bridge = new BridgeServer({
        store,
        bus,
        recordsDir: runDir,
        // slime started again (its rollout function is a new process): its weight versions count from 0 again
        onClientReplaced: ({ previous, current }) =>
          resetVersionsForTrainerRestart(versions, bus, `slime's rollout function is a new process (pid ${previous.pid} → ${current.pid}): slime restarted, its weight versions count from 0 again`),
      });
      bridgeEndpoint = await bridge.start({ host: bridgeHost(recipe), port: 0 });
      sink = store;
    }
    announcingSink = announceSamples(sink, bus, recipe.training.batch_size, () => store?.counts().ready ?? null);
    judging = await judgingStart;
  } catch (error) {
    await judgingStart.then((thread) => thread.drain(0), () => undefined);
    await sink?.close().catch(() => undefined);
    await bridge?.close().catch(() => undefined);
    throw error;
  }
  const samples: SampleSink = sink;
  const policy = new SwitchableClient(options.engines.policy, recipe.proxy.request_timeout_s * 1000);
  const proxy = createProxy({
    recipe,
    policy: policy.client,
    tokenizer: policyTokenizer,
    template: policyTemplate,
    bus,
    onTurnClosed: (turn) => judging.onTurnClosed(turn),
    onFeedback: (body, headers) => judging.handleFeedback(body, headers),
    versions,
    readiness: options.readiness,
    apiKey: options.apiKey,
    recordsDir: runDir,
  });
  // A failure from here on (a port taken since preflight) must not leave servers holding the process open.
  const opened: Array<() => Promise<unknown>> = [() => samples.close(), async () => bridge?.close(), () => judging.drain(0)];
  const undo = async (error: unknown): Promise<never> => {
    for (const close of opened.reverse()) await close().catch(() => undefined);
    throw error;
  };
  const proxyAddress = await proxy.listen(options.ports?.proxy ?? recipe.proxy.port, recipe.proxy.host).catch(undo);
  opened.push(() => proxy.close(0));

  const adminToken = createAdminToken(runDir);
  const urls = { proxy: "", admin: "", dashboard: "", bridge: bridgeEndpoint?.url ?? null };
  const status = new StatusTracker(bus, recipe, {
    proxy: () => proxy.stats(),
    samples: store ? () => store.counts() : undefined,
    readiness: options.readiness,
    endpoints: () => urls,
    engines: options.engineStates,
    weightVersion: () => versions.label(),
  });
  const admin = new AdminServer({ bus, token: adminToken, snapshot: () => status.snapshot() });
  const dashboard = createDashboardRoutes({ bus, recordsDir: runDir, token: adminToken, method: recipe.method, versionLabelNote: versionLabels(recipe).note });
  admin.mount(dashboard);
  opened.push(async () => dashboard.close());
  const adminAddress = await admin.listen(options.ports?.admin ?? recipe.proxy.admin_port).catch(undo);
  urls.proxy = `http://${displayHost(proxyAddress.host)}:${proxyAddress.port}/v1`;
  urls.admin = adminAddress.url;
  urls.dashboard = `${adminAddress.url}${dashboard.basePath}/?token=${adminToken}`;

  // the engines themselves: the router slime announces has no weight-version route (engine-weight-versions.ts)
  const readVersion = async () => (await readEngineVersions(policy.client.baseUrl)).version;
  const watcher = new WeightUpdateWatcher({ bus, tracker: versions, readVersion });
  watcher.start();
  void watcher.poll();

  const readHello = (): BridgeHello | null => {
    const hello = bridge?.hello();
    if (!hello) return null;
    if (options.engines.policy === null && hello.routers.policy) policy.point(hello.routers.policy);
    if (options.engines.judge === null && hello.routers.judge) judging.pointJudge(hello.routers.judge);
    return hello;
  };

  let stopping: Promise<void> | null = null;
  const stop = (stopOptions: { engines?: () => Promise<unknown> } = {}) =>
    (stopping ??= (async () => {
      await proxy.close(options.proxyGraceMs ?? 10_000).catch(reportTo(bus, "proxy"));
      await judging.drain(options.judgeDrainMs ?? 15_000).catch(reportTo(bus, "judge"));
      await samples.close().catch(reportTo(bus, "store"));
      await bridge?.close().catch(reportTo(bus, "bridge"));
      watcher.stop();
      await stopOptions.engines?.().catch(reportTo(bus, "supervisor"));
      dashboard.close();
      status.close();
      await admin.close();
    })());

  return { bus, status, adminToken, urls, bridgeToken: bridgeEndpoint?.token ?? null, bridgeHello: readHello, stop };
}

function displayHost(host: string): string {
  return host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
}

function reportTo(bus: EventBus, source: string) {
  return (error: unknown) => void bus.emit({ type: "error", source, code: "INTERNAL", message: `stop: ${(error as Error).message}` });
}
