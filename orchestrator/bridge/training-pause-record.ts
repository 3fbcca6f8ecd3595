// The training pause's record in the run folder (training-pause.json): written atomically when training is paused,
// removed when it is resumed, read when `start` opens the folder again, so a pause outlives a restart. Owns the file
// and its format; ignores what a pause means to the bridge (training-pause.ts).
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { HeldOutDrop } from "../../contracts/evaluation.ts";
import { fsyncDirectory, replaceDurably } from "../../lib/durable-file.ts";

export const PAUSE_RECORD_FILE = "training-pause.json";

const intervalSchema = z.object({ low: z.number(), high: z.number() });
const heldOutDropSchema = z.object({
  version: z.string(),
  meanScore: z.number(),
  scoreCi: intervalSchema.nullable(),
  bestVersion: z.string(),
  bestMeanScore: z.number(),
  bestScoreCi: intervalSchema.nullable(),
  difference: z.number(),
  differenceCi: intervalSchema,
  pairs: z.number().int(),
}) satisfies z.ZodType<HeldOutDrop>;

const pauseRecordSchema = z
  .object({
    version: z.literal(1),
    reason: z.literal("held-out-worse"),
    /** When training was paused (ms since the epoch). */
    since: z.number(),
    /** The pause's sentence as it was first said (without what a restart adds to it). */
    message: z.string().min(1),
    drop: heldOutDropSchema,
  })
  .strict();
export type PauseRecord = z.output<typeof pauseRecordSchema>;

export class PauseRecordFile {
  readonly file: string;

  constructor(private readonly runDir: string) {
    this.file = path.join(runDir, PAUSE_RECORD_FILE);
  }

  /** The recorded pause, or null when training was not paused; a damaged record is an error (never a silent resume). */
  async read(): Promise<PauseRecord | null> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new OpenclawRlError("STORE_CORRUPT", `the training pause record ${this.file} cannot be read: ${(error as Error).message}`, { path: this.file, cause: error, hint: this.hint() });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new OpenclawRlError("STORE_CORRUPT", `the training pause record ${this.file} is not JSON: ${(error as Error).message}`, { path: this.file, cause: error, hint: this.hint() });
    }
    const parsed = pauseRecordSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length > 0 ? issue.path.join(".") : "(the whole record)";
      throw new OpenclawRlError("STORE_CORRUPT", `the training pause record ${this.file} is damaged: ${where}: ${issue.message}`, { path: this.file, hint: this.hint() });
    }
    return parsed.data;
  }

  /** Records the pause (replaced atomically). The caller orders the writes (training-pause.ts: one at a time). */
  async save(record: Omit<PauseRecord, "version" | "reason">): Promise<void> {
    const text = `${JSON.stringify({ version: 1, reason: "held-out-worse", ...record }, null, 2)}\n`;
    await replaceDurably(this.file, this.runDir, text);
  }

  /** Removes the record (training resumed); nothing to do when there is none. */
  async clear(): Promise<void> {
    await rm(this.file, { force: true });
    await fsyncDirectory(this.runDir);
  }

  private hint(): string {
    return `training was paused by evaluation.stop_if_worse before this start and its record is damaged: repair ${PAUSE_RECORD_FILE} to keep training paused, or remove it (\`rm ${this.file}\`) to start with training running`;
  }
}
