// A durable append-only JSONL file: mode 0600 in a 0700 folder, writes batched and fsync'd, each append resolved
// once its line is on disk, the file opened again after a failed write. No reading back.
import { mkdir, open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { GroupCommit } from "../../lib/group-commit.ts";

const NEWLINE = Buffer.from("\n");

export class JsonlAppendFile {
  private handle: Promise<FileHandle> | null = null;
  private readonly lines: GroupCommit<readonly Buffer[], void>;
  private closed = false;

  /** `commitIntervalMs`: the least time between two writes (see GroupCommit); lines added meanwhile go out together. */
  constructor(
    readonly file: string,
    options: { commitIntervalMs?: number } = {},
  ) {
    this.lines = new GroupCommit((lines) => this.writeLines(lines), { minIntervalMs: options.commitIntervalMs });
  }

  /**
   * Appends one JSON value as one line; resolves once the line is fsync'd. The line waits as bytes (off the JS heap:
   * a turn's line holds its whole history) and a group goes out in one writev, without joining the lines first.
   */
  append(value: unknown): Promise<void> {
    return this.appendLine([Buffer.from(JSON.stringify(value), "utf8")]);
  }

  /** Appends one line given as its bytes (without the newline), in parts that are written one after another. */
  appendLine(parts: readonly Buffer[]): Promise<void> {
    if (this.closed) return Promise.reject(new OpenclawRlError("INTERNAL", `${this.file} is closed`, { path: this.file }));
    return this.lines.add(parts);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.lines.settled();
    if (this.handle) await (await this.handle).close();
    this.handle = null;
  }

  private async writeLines(lines: (readonly Buffer[])[]): Promise<void[]> {
    try {
      const handle = await this.openHandle();
      const parts: Buffer[] = [];
      let expected = 0;
      for (const line of lines) {
        for (const part of line) {
          parts.push(part);
          expected += part.length;
        }
        parts.push(NEWLINE);
        expected += 1;
      }
      const { bytesWritten } = await handle.writev(parts);
      if (bytesWritten !== expected) throw new Error(`wrote ${bytesWritten} of ${expected} bytes (disk full?)`);
      await handle.sync();
      return lines.map(() => undefined);
    } catch (cause) {
      this.dropHandle(); // the next append opens (and creates) the file again
      throw new OpenclawRlError("INTERNAL", `cannot append to ${this.file}: ${(cause as Error).message}`, { path: this.file, cause, retryable: true });
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
