// A durable append-only JSONL file: mode 0600 in a 0700 folder, writes batched and fsync'd, each append resolved
// once its line is on disk, the file opened again after a failed write. No reading back.
import { mkdir, open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { GroupCommit } from "../group-commit.ts";

const NEWLINE = Buffer.from("\n");

export class JsonlAppendFile {
  private handle: Promise<FileHandle> | null = null;
  private readonly lines = new GroupCommit<Buffer, void>((lines) => this.writeLines(lines));
  private closed = false;

  constructor(readonly file: string) {}

  /**
   * Appends one JSON value as one line; resolves once the line is fsync'd. The line waits as bytes (off the JS heap:
   * a turn's line holds its whole history) and a group goes out in one writev, without joining the lines first.
   */
  append(value: unknown): Promise<void> {
    if (this.closed) return Promise.reject(new OpenclawRlError("INTERNAL", `${this.file} is closed`, { path: this.file }));
    return this.lines.add(Buffer.from(JSON.stringify(value), "utf8"));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.lines.settled();
    if (this.handle) await (await this.handle).close();
    this.handle = null;
  }

  private async writeLines(lines: Buffer[]): Promise<void[]> {
    try {
      const handle = await this.openHandle();
      const parts: Buffer[] = [];
      let expected = 0;
      for (const line of lines) {
        parts.push(line, NEWLINE);
        expected += line.length + 1;
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
