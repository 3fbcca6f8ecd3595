// A real orchestrator-side bridge for tests run as a child process: opens a store in --dir, puts samples,
// starts the BridgeServer, prints {"url","token",...} as its first stdout line, then obeys stdin commands.
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { BridgeListener } from "../../orchestrator/bridge/bridge-listener.ts";
import { BridgeServer } from "../../orchestrator/bridge/bridge-server.ts";
import { TrainingPause } from "../../orchestrator/bridge/training-pause.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { makeSample, type SampleShape } from "./sample-factory.ts";

const { values } = parseArgs({
  options: {
    dir: { type: "string" },
    samples: { type: "string", default: "0" },
    first: { type: "string", default: "0" },
    teacher: { type: "string", default: "none" }, // none | all | mixed | topk
    "response-length": { type: "string", default: "3" },
    "prompt-length": { type: "string", default: "4" },
    topk: { type: "string", default: "4" },
    "max-staleness": { type: "string", default: "2" },
    version: { type: "string", default: "default" },
    "keep-alive-ms": { type: "string", default: "5000" },
    episodes: { type: "boolean", default: false },
    // "deliver:N" / "ack:N": kill -9 itself right after the N-th batch is handed out (recorded, not yet sent) or
    // acknowledged (recorded, not yet answered)
    "die-after": { type: "string" },
  },
});
if (!values.dir) throw new Error("--dir is required");

const bus = new EventBus();
const tracker = new WeightVersionTracker();
tracker.observe(values.version);
const store = await SampleStore.open(`${values.dir}/store`, { staleness: new StalenessPolicy(tracker, Number(values["max-staleness"])) });
let next = Number(values.first);
if (values["die-after"]) dieAfter(values["die-after"]);

function dieAfter(point: string): void {
  const [method, count] = point.split(":") as ["deliver" | "acknowledge" | "ack", string];
  const name = method === "ack" ? "acknowledge" : method;
  const original = (store[name] as (...args: unknown[]) => Promise<unknown>).bind(store);
  let calls = 0;
  (store as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
    const result = await original(...args);
    if (result !== null && ++calls === Number(count)) process.kill(process.pid, "SIGKILL");
    return result;
  };
}

function shapeFor(index: number, version: string): SampleShape {
  const mode = values.teacher;
  return {
    responseLength: Number(values["response-length"]),
    promptLength: Number(values["prompt-length"]),
    teacher: mode === "all" || mode === "topk" || (mode === "mixed" && index % 2 === 0),
    topk: mode === "topk" ? Number(values.topk) : 0,
    weightVersion: version,
    episode: values.episodes,
  };
}

async function putSamples(count: number, version: string): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => next++).map((index) => store.put(makeSample(index, shapeFor(index, version)))));
}

await putSamples(Number(values.samples), values.version);
const pause = new TrainingPause(bus, "resume-training");
const bridge = new BridgeServer({ store, bus, recordsDir: values.dir, pause });
// The address is printed once bound and before it is served: a restarted fixture rebinds its predecessor's port, so
// the trainer's retries reach it at once, and a --die-after point could otherwise kill it before it said where it is.
const listener = await BridgeListener.open({ host: "127.0.0.1", port: 0, recordsDir: values.dir, keepAliveTimeoutMs: Number(values["keep-alive-ms"]) });
const print = (value: unknown) => process.stdout.write(JSON.stringify(value) + "\n");
print({ url: listener.url, token: listener.token, pid: process.pid, counts: store.counts(), recovery: store.recovery });
await bridge.serve(listener);

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const [command, argument, extra] = line.trim().split(/\s+/);
  if (command === "put") {
    await putSamples(Number(argument ?? "1"), extra ?? tracker.current().toString());
    print({ ok: "put", counts: store.counts() });
  } else if (command === "version") {
    tracker.observe(argument ?? "0");
    print({ ok: "version", current: tracker.current() });
  } else if (command === "trainer-metrics") {
    print({ ok: "trainer-metrics", events: bus.recent().filter((event) => event.type === "trainer-metrics") });
  } else if (command === "pause") {
    const drop = { version: "6", meanScore: 0.3, scoreCi: null, bestVersion: "3", bestMeanScore: 0.8, bestScoreCi: null, difference: -0.5, differenceCi: { low: -0.6, high: -0.4 }, pairs: 8 };
    print({ ok: "pause", paused: pause.pauseFor(drop, "v6 below v3") });
  } else if (command === "resume") {
    print({ ok: "resume", resumed: pause.resume("fixture").resumed });
  } else if (command === "stats") {
    print({ ok: "stats", stats: bridge.stats(), hello: bridge.hello(), events: bus.recent().map((event) => event.type) });
  }
}
await bridge.close();
await store.close();
