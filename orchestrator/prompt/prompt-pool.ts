// A pool of worker threads that render chat templates off the event loop, in parallel on multi-core machines
// (templates interpreted by @huggingface/jinja; compiled ones render on the main thread in microseconds). Jobs of
// one session go to one worker. Owns the workers and their routing; the rendering is prompt-worker.ts's job.
import type { Worker } from "node:worker_threads";
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import { OpenclawRlError, type ErrorCode } from "../../contracts/errors.ts";
import { startTsWorker } from "../../lib/worker-thread.ts";
import type { PromptJob, PromptJobResult } from "./prompt-job.ts";

interface Pending {
  resolve(text: string): void;
  reject(error: Error): void;
}

interface PoolWorker {
  worker: Worker;
  ready: Promise<boolean>;
  alive: boolean;
  pending: Map<number, Pending>;
}

export class PromptPool {
  private readonly workers: PoolWorker[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly source: string,
    private readonly size: number,
    private readonly startTimeoutMs = 60_000,
  ) {}

  start(): void {
    if (this.workers.length > 0 || this.closed || this.size <= 0) return;
    const module = new URL("./prompt-worker.ts", import.meta.url);
    for (let index = 0; index < this.size; index++) {
      let worker: Worker;
      try {
        worker = startTsWorker(module, { source: this.source });
      } catch {
        return; // no tsx: prompts are built inline
      }
      worker.unref();
      const entry: PoolWorker = { worker, alive: true, pending: new Map(), ready: Promise.resolve(false) };
      entry.ready = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), this.startTimeoutMs);
        timer.unref();
        worker.once("message", (message: { ready?: boolean }) => {
          clearTimeout(timer);
          resolve(message.ready === true);
        });
        worker.once("error", () => resolve(false));
      });
      worker.on("message", (message: PromptJobResult | { ready: boolean }) => {
        if ("id" in message) this.settle(entry, message);
      });
      worker.on("error", (error) => this.fail(entry, error));
      worker.on("exit", () => this.fail(entry, new Error("prompt worker exited")));
      this.workers.push(entry);
    }
  }

  /** Whether at least one worker is up (waits for start-up, bounded). */
  async ready(): Promise<boolean> {
    if (this.workers.length === 0) return false;
    const states = await Promise.all(this.workers.map((entry) => entry.ready));
    return states.some(Boolean) && this.workers.some((entry) => entry.alive);
  }

  /** The prompt text of messages, tools and chat_template_kwargs. */
  build(routeKey: string, messages: readonly ChatMessage[], tools: readonly Tool[] | null | undefined, extra: Record<string, unknown> | undefined): Promise<string> {
    return this.run(routeKey, { kind: "build", messages: [...messages], tools: tools ? [...tools] : null, extra });
  }

  /** From the raw request body, handed over without a copy (the caller must not use `body` afterwards). */
  buildFromBody(routeKey: string, body: ArrayBuffer): Promise<string> {
    return this.run(routeKey, { kind: "body", body }, [body]);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.workers.splice(0)) {
      this.fail(entry, new Error("prompt pool closed"));
      void entry.worker.terminate(); // not awaited: a worker still loading finishes that first; they are unref'd
    }
  }

  private async run(routeKey: string, job: Omit<PromptJob, "id">, transfer: ArrayBuffer[] = []): Promise<string> {
    const alive = this.workers.filter((entry) => entry.alive);
    if (this.closed || alive.length === 0) throw new OpenclawRlError("INTERNAL", "no prompt worker is running");
    const entry = alive[hash(routeKey) % alive.length]!;
    if (!(await entry.ready) || !entry.alive) throw new OpenclawRlError("INTERNAL", "the prompt worker did not start");
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      entry.pending.set(id, { resolve, reject });
      entry.worker.postMessage({ ...job, id } satisfies PromptJob, transfer);
    });
  }

  private settle(entry: PoolWorker, result: PromptJobResult): void {
    const pending = entry.pending.get(result.id);
    if (!pending) return;
    entry.pending.delete(result.id);
    if (result.ok) pending.resolve(result.text);
    else pending.reject(new OpenclawRlError(result.code as ErrorCode, result.message));
  }

  private fail(entry: PoolWorker, error: Error): void {
    entry.alive = false;
    for (const pending of entry.pending.values()) pending.reject(new OpenclawRlError("INTERNAL", `prompt worker failed: ${error.message}`, { cause: error }));
    entry.pending.clear();
  }
}

function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) value = Math.imul(value ^ text.charCodeAt(index), 0x01000193);
  return value >>> 0;
}
