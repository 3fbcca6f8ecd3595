// A small worker_threads pool that encodes large, never-seen text segments (a 48 KB system prompt) off the
// event loop, so concurrent short requests are not blocked. Owns the workers; ignores chat templates.
import { Worker } from "node:worker_threads";
import { createRequire } from "node:module";
import { OpenclawRlError } from "../../contracts/errors.ts";

// Plain JS (workers do not run through tsx): load tokenizer.json + tokenizer_config.json, encode on demand.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const path = require("node:path");
const { TokenizerLoader } = require(workerData.tokenizersModule);
let tokenizer = null;
try {
  const tokenizerJSON = JSON.parse(fs.readFileSync(path.join(workerData.folder, "tokenizer.json"), "utf8"));
  const tokenizerConfig = JSON.parse(fs.readFileSync(path.join(workerData.folder, "tokenizer_config.json"), "utf8"));
  tokenizer = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ ready: false, error: String(error && error.message || error) });
}
parentPort.on("message", (job) => {
  try {
    const ids = tokenizer.encode(job.text, { add_special_tokens: false });
    parentPort.postMessage({ id: job.id, ids: Int32Array.from(ids) });
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String(error && error.message || error) });
  }
});
`;

interface Job {
  id: number;
  text: string;
  resolve(ids: number[]): void;
  reject(error: Error): void;
}

interface PoolWorker {
  worker: Worker;
  ready: Promise<boolean>;
  busy: Job | null;
}

export class EncodePool {
  private readonly workers: PoolWorker[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly folder: string,
    private readonly size = 1,
  ) {}

  /** Starts the workers (loading a tokenizer takes ~0.5 s); idempotent. */
  start(): void {
    if (this.workers.length > 0 || this.closed) return;
    const require = createRequire(import.meta.url);
    const tokenizersModule = require.resolve("@lenml/tokenizers");
    for (let index = 0; index < this.size; index++) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { folder: this.folder, tokenizersModule } });
      worker.unref();
      const entry: PoolWorker = { worker, busy: null, ready: Promise.resolve(false) };
      entry.ready = new Promise((resolve) => {
        worker.once("message", (message: { ready: boolean }) => resolve(message.ready));
        worker.once("error", () => resolve(false));
      });
      worker.on("message", (message: { id?: number; ids?: Int32Array; error?: string }) => this.onResult(entry, message));
      worker.on("error", (error) => this.onWorkerError(entry, error));
      this.workers.push(entry);
    }
  }

  /** Encodes `text` in a worker; rejects when no worker could load the tokenizer. */
  async encode(text: string): Promise<number[]> {
    this.start();
    if (this.closed) throw new OpenclawRlError("INTERNAL", "encode pool is closed");
    const readiness = await Promise.all(this.workers.map((entry) => entry.ready));
    if (!readiness.some(Boolean)) throw new OpenclawRlError("INTERNAL", `encode workers could not load the tokenizer from ${this.folder}`);
    return new Promise<number[]>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, text, resolve, reject });
      void this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new OpenclawRlError("INTERNAL", "encode pool closed"));
    // not awaited: a worker still parsing tokenizer.json finishes that first; they are unref'd anyway
    for (const entry of this.workers.splice(0)) void entry.worker.terminate();
  }

  private async dispatch(): Promise<void> {
    for (const entry of this.workers) {
      if (this.queue.length === 0) return;
      if (entry.busy || !(await entry.ready) || entry.busy) continue;
      const job = this.queue.shift();
      if (!job) return;
      entry.busy = job;
      entry.worker.postMessage({ id: job.id, text: job.text });
    }
  }

  private onResult(entry: PoolWorker, message: { id?: number; ids?: Int32Array; error?: string }): void {
    const job = entry.busy;
    if (message.id === undefined || !job || job.id !== message.id) return;
    entry.busy = null;
    if (message.ids) job.resolve(Array.from(message.ids));
    else job.reject(new OpenclawRlError("INTERNAL", `encode worker failed: ${message.error ?? "unknown error"}`));
    void this.dispatch();
  }

  private onWorkerError(entry: PoolWorker, error: Error): void {
    const job = entry.busy;
    entry.busy = null;
    entry.ready = Promise.resolve(false);
    job?.reject(new OpenclawRlError("INTERNAL", `encode worker crashed: ${error.message}`, { cause: error }));
    void this.dispatch();
  }
}
