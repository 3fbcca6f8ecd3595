// Starts tests/bridge/bridge-fixture-server.ts (a real store + bridge) as a child with execa, reads its JSON
// lines and sends it stdin commands; plus a tiny TS bridge client for tests. Test-only helper.
import { createInterface, type Interface } from "node:readline";
import { execa, type ResultPromise } from "execa";
import { BATCH_FRAME_MAGIC, BRIDGE_VERSION, type BatchFrameHeader } from "../../contracts/bridge.ts";
import type { BridgeServer } from "../../orchestrator/bridge/bridge-server.ts";
import { parseFrame } from "../../orchestrator/store/sample-frame.ts";

export const REPO_ROOT = new URL("../../", import.meta.url).pathname;

export interface FixtureInfo {
  url: string;
  token: string;
  pid: number;
  counts: { ready: number; delivered: number; acknowledged: number; droppedStale: number };
  recovery: { samples: number; ready: number; tornBytes: number };
}

export class FixtureProcess {
  private readonly lines: AsyncIterator<string>;
  private readonly reader: Interface;

  private constructor(
    readonly child: ResultPromise<{ stdin: "pipe"; stdout: "pipe"; stderr: "pipe"; buffer: false; reject: false }>,
    readonly info: FixtureInfo,
    reader: Interface,
    lines: AsyncIterator<string>,
  ) {
    this.reader = reader;
    this.lines = lines;
  }

  static async start(dir: string, ...args: string[]): Promise<FixtureProcess> {
    const child = execa("node", ["--import", "tsx/esm", "tests/bridge/bridge-fixture-server.ts", "--dir", dir, ...args], {
      cwd: REPO_ROOT,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      buffer: false,
      reject: false,
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const reader = createInterface({ input: child.stdout });
    const lines = reader[Symbol.asyncIterator]();
    const first = await lines.next();
    if (first.done) {
      const ended = await child;
      throw new Error(`bridge fixture exited before printing its address (${ended.signal ?? `exit ${ended.exitCode}`}):\n${stderr}`);
    }
    return new FixtureProcess(child, JSON.parse(first.value) as FixtureInfo, reader, lines);
  }

  async command(text: string): Promise<Record<string, unknown>> {
    this.child.stdin.write(text + "\n");
    const next = await this.lines.next();
    if (next.done) throw new Error(`fixture exited during "${text}"`);
    return JSON.parse(next.value) as Record<string, unknown>;
  }

  /** kill -9: no flush, no close. */
  async kill9(): Promise<void> {
    this.child.kill("SIGKILL");
    await this.child;
    this.reader.close();
  }

  async stop(): Promise<void> {
    this.child.stdin.end();
    await this.child;
    this.reader.close();
  }
}

export class TestBridgeClient {
  constructor(
    private readonly url: string,
    private readonly token: string,
    readonly session = `ts-${Math.random().toString(16).slice(2)}`,
  ) {}

  private post(path: string, body: Record<string, unknown>): Promise<Response> {
    return fetch(this.url + path, {
      method: "POST",
      headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json" },
      body: JSON.stringify({ version: BRIDGE_VERSION, session: this.session, ...body }),
      signal: AbortSignal.timeout(20_000),
    });
  }

  async hello(): Promise<void> {
    const response = await this.post("/v1/hello", { type: "hello", pid: process.pid, routers: { policy: null, judge: null } });
    if (response.status !== 200) throw new Error(`hello: ${response.status}`);
  }

  async batch(rolloutId: number, size: number, waitMs = 0, holding?: string[]): Promise<BatchFrameHeader | null> {
    const response = await this.post("/v1/batch", { type: "batch-request", rolloutId, size, waitMs, ...(holding ? { holding } : {}) });
    if (response.status !== 200) throw new Error(`batch: ${response.status} ${await response.text()}`);
    if (!(response.headers.get("content-type") ?? "").startsWith("application/vnd.openclaw-rl.batch")) return null;
    return parseFrame<BatchFrameHeader>(Buffer.from(await response.arrayBuffer()), BATCH_FRAME_MAGIC).header;
  }

  async ack(rolloutId: number, batchId: string): Promise<number> {
    const response = await this.post("/v1/ack", { type: "ack", rolloutId, batchId });
    await response.body?.cancel();
    return response.status;
  }
}

/** Starts `bridge` on a free loopback port and returns a client that has said hello to it. */
export async function helloClient(bridge: BridgeServer): Promise<TestBridgeClient> {
  const endpoint = await bridge.start({ host: "127.0.0.1", port: 0 });
  const client = new TestBridgeClient(endpoint.url, endpoint.token);
  await client.hello();
  return client;
}
