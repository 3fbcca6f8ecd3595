// Worker-thread entry of judging: loads the policy's and the judge's tokenizer files, then runs a JudgePipeline
// (judge votes, teacher scoring, judgement records) on this thread. Samples go back to the proxy's thread, which
// owns the sink; events go back to its bus. Knows nothing of HTTP routing or of the sink's kind.
import { parentPort, workerData } from "node:worker_threads";
import type { Sample } from "../../contracts/sample.ts";
import type { PutOutcome, SampleSink } from "../../contracts/sample-sink.ts";
import { SwitchableClient } from "../../lib/sglang/switchable-client.ts";
import { EventBus } from "../event-bus.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { assertTeacherReadsPolicyIds } from "./teacher-vocabulary.ts";
import { StalenessPolicy } from "../weights/staleness-policy.ts";
import { sharedWeightVersion } from "../weights/weight-version-tracker.ts";
import { JudgePipeline } from "./judge-pipeline.ts";
import { packSample, unpackTurn, type FromJudgeWorker, type JudgeWorkerData, type ToJudgeWorker } from "./judge-thread-protocol.ts";

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const data = workerData as JudgeWorkerData;
  const post = (message: FromJudgeWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

  let pipeline: JudgePipeline;
  let judge: SwitchableClient;
  const bus = new EventBus(64);
  const stored = new Map<number, { resolve(outcome: PutOutcome): void; reject(error: Error): void }>();
  try {
    const [policyFiles, judgeFiles] = await Promise.all([loadTokenizerFiles(data.policySource), data.judgeSource === data.policySource ? null : loadTokenizerFiles(data.judgeSource)]);
    if (judgeFiles) assertTeacherReadsPolicyIds(data.recipe.method, policyFiles, judgeFiles);
    const policyTokenizer = new ModelTokenizer(policyFiles);
    const policyTemplate = new ChatTemplate(policyFiles);
    judge = new SwitchableClient(data.judgeUrl, data.recipe.judge.timeout_s * 1000);
    let nextSample = 1;
    const sink: SampleSink = {
      put(sample: Sample) {
        const id = nextSample++;
        const packed = packSample(sample);
        return new Promise<PutOutcome>((resolve, reject) => {
          stored.set(id, { resolve, reject });
          post({ type: "sample", id, sample: packed.sample }, packed.transfer);
        });
      },
      close: async () => undefined,
    };
    pipeline = new JudgePipeline({
      recipe: data.recipe,
      judge: judge.client,
      judgeTemplate: judgeFiles ? new ChatTemplate(judgeFiles) : policyTemplate,
      judgeTokenizer: judgeFiles ? new ModelTokenizer(judgeFiles) : policyTokenizer,
      policyTemplate,
      policyTokenizer,
      bus,
      sink,
      recordsDir: data.recordsDir,
      retryBackoffMs: data.retryBackoffMs,
      turnRetries: data.turnRetries,
      turnRetryDelayMs: data.turnRetryDelayMs,
      staleness: new StalenessPolicy(sharedWeightVersion(data.versions), data.recipe.training.max_staleness),
    });
  } catch (error) {
    const { code, path, hint } = error as { code?: string; path?: string; hint?: string };
    post({ type: "start-failed", code: code ?? "INTERNAL", message: (error as Error).message, path, hint });
    return;
  }

  // Events go one way on this thread's bus: what the pipeline emits goes to the proxy's bus; the proxy's events
  // judging follows come in as messages, straight to the pipeline.
  bus.subscribe((event) => {
    const { at: _at, ...input } = event;
    post({ type: "event", event: input });
  });

  port.on("message", (message: ToJudgeWorker) => {
    switch (message.type) {
      case "turn-closed":
        pipeline.onTurnClosed(unpackTurn(message.turn));
        return;
      case "turns-ended":
        for (const notice of message.turns) pipeline.turnEnded(notice);
        return;
      case "event":
        pipeline.follow(message.event);
        return;
      case "feedback":
        void pipeline.handleFeedback(message.body, message.headers).then(
          (reply) => post({ type: "feedback-reply", id: message.id, reply }),
          (error: unknown) => post({ type: "feedback-reply", id: message.id, reply: { status: 500, body: { error: { message: (error as Error).message, type: "internal_error", field: null } } } }),
        );
        return;
      case "judge-url":
        judge.point(message.url);
        return;
      case "sample-stored": {
        const waiting = stored.get(message.id);
        stored.delete(message.id);
        if (message.error === null) waiting?.resolve(message.outcome ?? "stored");
        else waiting?.reject(new Error(message.error));
        return;
      }
      case "drain":
        void pipeline.drain(message.timeoutMs).finally(() => post({ type: "drained" }));
        return;
    }
  });
  post({ type: "ready" });
}

void main();
