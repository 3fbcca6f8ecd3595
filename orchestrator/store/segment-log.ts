// Append-only segment files of length + CRC framed records with group commit (one write + fsync for many
// appends), torn-tail repair on open, reads by location and removal of whole segments. Knows nothing of samples.
import { open, readdir, readFile, rm, truncate, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { GroupCommit } from "../../lib/group-commit.ts";
import { fsyncDirectory } from "../../lib/durable-file.ts";

export interface RecordLocation {
  segment: number;
  offset: number; // of the record's payload
  length: number;
}

export interface RecoveredRecord {
  location: RecordLocation;
  payload: Buffer;
}

export interface SegmentRecovery {
  records: RecoveredRecord[];
  /** Bytes cut off a torn last segment (a crash in the middle of a write). */
  tornBytes: number;
}

const RECORD_PREFIX = 8; // u32 length, u32 crc32
const SEGMENT_PATTERN = /^samples-(\d{8})\.seg$/;

export function segmentFileName(segment: number): string {
  return `samples-${String(segment).padStart(8, "0")}.seg`;
}

export class SegmentLog {
  private readonly appends = new GroupCommit<Buffer, RecordLocation>((payloads) => this.writeGroup(payloads));
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
    private active: number,
    private activeHandle: FileHandle,
    private activeSize: number,
  ) {}

  /** Opens (or creates) the segments in `dir`; returns every intact record, oldest first. */
  static async open(dir: string, segmentBytes: number): Promise<{ log: SegmentLog; recovery: SegmentRecovery }> {
    const segments = (await readdir(dir))
      .map((name) => SEGMENT_PATTERN.exec(name))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => Number(match[1]))
      .sort((a, b) => a - b);
    const records: RecoveredRecord[] = [];
    let tornBytes = 0;
    for (const [position, segment] of segments.entries()) {
      const path = join(dir, segmentFileName(segment));
      const bytes = await readFile(path);
      const { intactLength } = scanSegment(bytes, segment, records);
      if (intactLength < bytes.length) {
        if (position !== segments.length - 1) {
          throw new OpenclawRlError("STORE_CORRUPT", `segment ${path} is damaged at byte ${intactLength} and is not the last one`, {
            path,
            hint: "a disk error, not a crash; move the run folder's store aside to start fresh",
          });
        }
        tornBytes = bytes.length - intactLength;
        await truncate(path, intactLength);
      }
    }
    const active = segments.length > 0 ? segments[segments.length - 1]! : 1;
    const handle = await open(join(dir, segmentFileName(active)), "a+");
    const size = (await handle.stat()).size;
    if (segments.length === 0) await fsyncDirectory(dir);
    return { log: new SegmentLog(dir, segmentBytes, active, handle, size), recovery: { records, tornBytes } };
  }

  get activeSegment(): number {
    return this.active;
  }

  /** Resolves once the payload is written and fsync'd. Appends queued meanwhile share one fsync. */
  append(payload: Buffer): Promise<RecordLocation> {
    if (this.closed) return Promise.reject(new OpenclawRlError("INTERNAL", "sample store is closed"));
    return this.appends.add(payload);
  }

  private async writeGroup(payloads: Buffer[]): Promise<RecordLocation[]> {
    if (this.activeSize >= this.segmentBytes) await this.rotate();
    const buffers: Buffer[] = [];
    const locations: RecordLocation[] = [];
    let offset = this.activeSize;
    for (const payload of payloads) {
      const prefix = Buffer.alloc(RECORD_PREFIX);
      prefix.writeUInt32LE(payload.length, 0);
      prefix.writeUInt32LE(crc32(payload), 4);
      buffers.push(prefix, payload);
      locations.push({ segment: this.active, offset: offset + RECORD_PREFIX, length: payload.length });
      offset += RECORD_PREFIX + payload.length;
    }
    await this.activeHandle.writev(buffers);
    await this.activeHandle.sync();
    this.activeSize = offset;
    return locations;
  }

  private async rotate(): Promise<void> {
    await this.activeHandle.close();
    this.active += 1;
    this.activeHandle = await open(join(this.dir, segmentFileName(this.active)), "a+");
    this.activeSize = 0;
    await fsyncDirectory(this.dir);
  }

  async read(location: RecordLocation): Promise<Buffer> {
    const buffer = Buffer.alloc(location.length);
    const handle = location.segment === this.active ? this.activeHandle : await open(join(this.dir, segmentFileName(location.segment)), "r");
    try {
      const { bytesRead } = await handle.read(buffer, 0, location.length, location.offset);
      if (bytesRead !== location.length) throw new OpenclawRlError("STORE_CORRUPT", `short read in segment ${location.segment}`);
    } finally {
      if (handle !== this.activeHandle) await handle.close();
    }
    return buffer;
  }

  /** Deletes a finished segment (never the active one). */
  async remove(segment: number): Promise<void> {
    if (segment === this.active) return;
    await rm(join(this.dir, segmentFileName(segment)), { force: true });
    await fsyncDirectory(this.dir);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.appends.settled();
    await this.activeHandle.close();
  }
}

/** Pushes the intact records of one segment; returns where the intact prefix ends. */
function scanSegment(bytes: Buffer, segment: number, into: RecoveredRecord[]): { intactLength: number } {
  let offset = 0;
  while (offset + RECORD_PREFIX <= bytes.length) {
    const length = bytes.readUInt32LE(offset);
    const checksum = bytes.readUInt32LE(offset + 4);
    const start = offset + RECORD_PREFIX;
    if (start + length > bytes.length) break;
    const payload = bytes.subarray(start, start + length);
    if (crc32(payload) !== checksum) break;
    into.push({ location: { segment, offset: start, length }, payload });
    offset = start + length;
  }
  return { intactLength: offset };
}
