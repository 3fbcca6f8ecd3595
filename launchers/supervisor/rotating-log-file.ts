// The file behind one child's log, with a size cap: when the next write would take <name>.log past maxBytes, the
// file is renamed to <name>.log.1 (replacing the one before) and a new <name>.log is started, whose first line says
// so. At most about 2 × maxBytes of a child's log are on disk. Writes are synchronous (like pino's sync
// destination), so nothing is lost when the process ends; a failed write (a full disk) drops the line, it never
// throws into the supervisor.
import { closeSync, fstatSync, openSync, renameSync, writeSync } from "node:fs";

/** Default cap of one child's <name>.log: 64 MiB (plus 64 MiB in <name>.log.1). */
export const CHILD_LOG_MAX_BYTES = 64 * 1024 * 1024;

export class RotatingLogFile {
  private fd: number;
  private size: number;
  /** Lines dropped because a write failed. */
  dropped = 0;

  /** `rotationNote` gives the first line of each new file (a pino JSON line saying where the earlier lines are). */
  constructor(readonly file: string, private readonly maxBytes = CHILD_LOG_MAX_BYTES, private readonly rotationNote?: () => string) {
    this.fd = openSync(file, "a");
    this.size = fstatSync(this.fd).size;
  }

  /** pino's destination interface: one formatted line (or more) at a time. */
  write(chunk: string): boolean {
    if (this.fd < 0) return true;
    const data = Buffer.from(chunk);
    try {
      if (this.size > 0 && this.size + data.length > this.maxBytes) this.rotate();
      this.writeAll(data);
    } catch {
      this.dropped += 1;
    }
    return true;
  }

  end(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }

  private rotate(): void {
    closeSync(this.fd);
    this.fd = -1;
    try {
      renameSync(this.file, `${this.file}.1`);
    } catch {
      // (the file was moved or removed meanwhile: start a new one all the same)
    }
    this.fd = openSync(this.file, "a");
    this.size = fstatSync(this.fd).size;
    const note = this.rotationNote?.();
    if (note) this.writeAll(Buffer.from(note));
  }

  private writeAll(data: Buffer): void {
    let offset = 0;
    while (offset < data.length) offset += writeSync(this.fd, data, offset, data.length - offset);
    this.size += data.length;
  }
}
