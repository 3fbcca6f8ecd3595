// Bench: 16-sample batches of 8K-token samples, with and without top-50 teacher arrays, from the durable store
// to torch tensors in a Python process; binary bridge frames versus a JSON-numbers baseline, in one run.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { BridgeServer } from "../../orchestrator/bridge/bridge-server.ts";
import { decodeSample } from "../../orchestrator/store/sample-frame.ts";
import { SampleStore } from "../../orchestrator/store/sample-store.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { makeSample } from "../bridge/sample-factory.ts";

const REPO_ROOT = new URL("../../", import.meta.url).pathname;
const BATCH = 16;
const PROMPT = 256;
const RESPONSE = 8192;
const BINARY_REPS = 3;
const JSON_REPS = 1;

interface Row {
  config: string;
  transport: string;
  seconds: number;
  megabytes: number | null;
}

function jsonBaselineServer(store: SampleStore): Promise<Server> {
  let rollout = 1000;
  const server = createServer((request, response) => {
    void (async () => {
      for await (const _chunk of request) void _chunk;
      const batch = await store.deliver(BATCH, rollout++);
      if (!batch) return void response.writeHead(503).end();
      const samples = batch.frames.map((frame) => decodeSample(frame).sample);
      const body = JSON.stringify({ samples });
      await store.acknowledge(batch.batchId);
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
    })();
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function runClient(mode: "binary" | "json", url: string, token: string, reps: number): Promise<Array<{ seconds: number; bytes: number | null }>> {
  const result = await execa("/usr/bin/python3", ["tests/bridge/fixtures/bench_client.py", mode, url, token, String(reps), String(BATCH)], {
    cwd: REPO_ROOT,
    env: { PYTHONPATH: join(REPO_ROOT, "native"), OPENCLAW_RL_BRIDGE: url, OPENCLAW_RL_BRIDGE_TOKEN: token },
    timeout: 300_000,
  });
  return result.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { seconds: number; bytes: number | null });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function benchConfig(name: string, topk: number, rows: Row[]): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "openclaw-bridge-bench-"));
  try {
    const store = await SampleStore.open(join(dir, "store"), { staleness: new StalenessPolicy(new WeightVersionTracker(), 1000) });
    const total = BATCH * (BINARY_REPS + JSON_REPS);
    const putStarted = performance.now();
    await Promise.all(
      Array.from({ length: total }, (_, index) => store.put(makeSample(index, { promptLength: PROMPT, responseLength: RESPONSE, teacher: topk > 0, topk }))),
    );
    rows.push({ config: name, transport: `store.put, ${BATCH} samples (durable, ${total} put at once)`, seconds: (performance.now() - putStarted) / 1000 / (total / BATCH), megabytes: null });
    const bridge = new BridgeServer({ store, bus: new EventBus(), recordsDir: dir });
    const { url, token } = await bridge.start({ host: "127.0.0.1", port: 0 });
    const binary = await runClient("binary", url, token, BINARY_REPS);
    const frameBytes = 4 * BATCH * (PROMPT + RESPONSE * 3 + (topk > 0 ? RESPONSE * (1 + 2 * topk) : 0)); // tokens, mask, log-probs, teacher
    rows.push({ config: name, transport: "binary frames (bridge)", seconds: median(binary.map((rep) => rep.seconds)), megabytes: frameBytes / 1e6 });
    await bridge.close();
    const baseline = await jsonBaselineServer(store);
    const baselineUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}`;
    const json = await runClient("json", baselineUrl, token, JSON_REPS);
    rows.push({ config: name, transport: "JSON numbers (baseline)", seconds: median(json.map((rep) => rep.seconds)), megabytes: (json[0]?.bytes ?? 0) / 1e6 });
    await new Promise((resolve) => baseline.close(resolve));
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export default async function bridgeBench(): Promise<void> {
  const rows: Row[] = [];
  await benchConfig(`${BATCH} × ${PROMPT}+${RESPONSE} tokens, no teacher`, 0, rows);
  await benchConfig(`${BATCH} × ${PROMPT}+${RESPONSE} tokens, top-50 teacher`, 50, rows);
  const lines = [
    "### bridge: store → Python tensors, one batch",
    "",
    "| batch | path | seconds per batch | MB on the wire |",
    "|---|---|---:|---:|",
    ...rows.map((row) => `| ${row.config} | ${row.transport} | ${row.seconds.toFixed(3)} | ${row.megabytes === null ? "–" : row.megabytes.toFixed(1)} |`),
  ];
  console.log(lines.join("\n"));
}

if (import.meta.url === `file://${process.argv[1]}`) await bridgeBench();
