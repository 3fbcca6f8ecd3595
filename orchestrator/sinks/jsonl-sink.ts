// A durable append-only JSONL file (mode 0600, writes batched and fsync'd, each put resolved once on disk) and
// the `sink.kind: jsonl` SampleSink built on it: collect samples now, train on them later. No reading back.
import { mkdir, open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import type { Sample } from "../../contracts/sample.ts";
import type { SampleSink } from "../../contracts/sample-sink.ts";

interface PendingLine {
  line: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class JsonlAppendFile {
  private handle: Promise<FileHandle> | null = null;
  private pending: PendingLine[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(readonly file: string) {}

  /** Appends one JSON value as one line; resolves once the line is fsync'd. */
  append(value: unknown): Promise<void> {
    if (this.closed) return Promise.reject(new OpenclawRlError("INTERNAL", `${this.file} is closed`, { path: this.file }));
    const line = JSON.stringify(value) + "\n";
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ line, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.flushing) await this.flushing;
    if (this.handle) await (await this.handle).close();
    this.handle = null;
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        try {
          const handle = await this.openHandle();
          await handle.write(batch.map((entry) => entry.line).join(""));
          await handle.sync();
          for (const entry of batch) entry.resolve();
        } catch (cause) {
          const error = new OpenclawRlError("INTERNAL", `cannot append to ${this.file}: ${(cause as Error).message}`, { path: this.file, cause, retryable: true });
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  private openHandle(): Promise<FileHandle> {
    this.handle ??= (async () => {
      await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const handle = await open(this.file, "a", 0o600);
      await handle.chmod(0o600);
      return handle;
    })();
    this.handle.catch(() => (this.handle = null));
    return this.handle;
  }
}

/** sink.kind jsonl: each sample one JSON line in sink.path. */
export class JsonlSink implements SampleSink {
  private readonly file: JsonlAppendFile;

  /** The sink of a recipe with sink.kind jsonl; a relative sink.path is inside records.dir. */
  static fromRecipe(recipe: Recipe): JsonlSink {
    if (!recipe.sink.path) throw new OpenclawRlError("RECIPE_INVALID", "sink.kind is jsonl, so sink.path (a JSONL file) is required", { path: "sink.path" });
    return new JsonlSink(path.resolve(recipe.records.dir, recipe.sink.path));
  }

  constructor(file: string) {
    this.file = new JsonlAppendFile(file);
  }

  get path(): string {
    return this.file.file;
  }

  put(sample: Sample): Promise<void> {
    return this.file.append(sample);
  }

  close(): Promise<void> {
    return this.file.close();
  }
}
