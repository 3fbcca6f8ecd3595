// Where the run's judged samples go: the durable store behind the bridge slime reads (with the trainer's watchers), or
// a JSONL file; announced on the bus either way. Ignores the store's and the bridge's own rules (store/, bridge/).
import path from "node:path";
import type { SampleSink } from "../../contracts/sample-sink.ts";
import { BridgeListener } from "../bridge/bridge-listener.ts";
import { BridgeServer, bridgeHost } from "../bridge/bridge-server.ts";
import { CheckpointWatcher } from "../checkpoints/checkpoint-watcher.ts";
import type { EventBus } from "../event-bus.ts";
import { announceSamples } from "../sinks/announcing-sink.ts";
import { JsonlSink } from "../sinks/jsonl-sink.ts";
import { TrainerWatchdog } from "../status/trainer-watchdog.ts";
import { SampleStore } from "../store/sample-store.ts";
import { StalenessPolicy } from "../weights/staleness-policy.ts";
import { resetVersionsForTrainerRestart } from "../weights/trainer-restart.ts";
import type { Run } from "./run-context.ts";

export interface OpenedSink {
  /** The sink judging puts samples into (announced on the bus as sample-ready). */
  announced: SampleSink;
  store: SampleStore | null;
  bridge: BridgeServer | null;
  endpoint: { url: string; token: string } | null;
}

/** Where judged samples go: the durable store behind the bridge slime reads (its listener closes after the store), or a JSONL file. */
export async function openSampleSink(run: Run): Promise<OpenedSink> {
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
  announceStore(store, bus, batchSize);
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
  return { announced: announceSamples(store, bus, batchSize, () => store.counts().ready, () => (run.pause.paused() ? null : store.held(batchSize))), store, bridge, endpoint };
}

/**
 * What the records folder's store holds as this run begins (samples earlier runs left ready, batches still out, its
 * totals), and, when those ready samples are a batch's worth that the per-session share holds back, that at once.
 */
function announceStore(store: SampleStore, bus: EventBus, batchSize: number): void {
  const { ready, acknowledged, droppedStale } = store.counts();
  const outstanding = store.outstanding().map(({ batchId, size }) => ({ batchId, size }));
  bus.emit({ type: "store-opened", ready, outstanding, acknowledged, droppedStale });
  const held = store.held(batchSize);
  if (held) bus.emit({ type: "batch-held", ready, size: batchSize, ...held });
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
