// A durable append-only JSONL file: mode 0600 in a 0700 folder, writes batched and fsync'd, each append resolved
// once its line is on disk, the file opened again after a failed write. No reading back.
import { mkdir, open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { OpenclawRlError } from "../../contracts/errors.ts";

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
          this.dropHandle(); // the next append opens (and creates) the file again
          const error = new OpenclawRlError("INTERNAL", `cannot append to ${this.file}: ${(cause as Error).message}`, { path: this.file, cause, retryable: true });
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  private dropHandle(): void {
    const handle = this.handle;
    this.handle = null;
    handle?.then((open) => open.close()).catch(() => undefined);
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
