// <recordsDir>/turns.jsonl: one line per closed (or failed) main turn, append-only, mode 0600, one open handle,
// writes serialised so lines never interleave. Ignores judging and samples.
import { chmod, mkdir, open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { CapturedTurn, ClosedTurn } from "../../contracts/turn.ts";

export interface TurnRecord {
  version: number;
  session_id: string;
  turn: number;
  messages: CapturedTurn["messages"];
  tools: CapturedTurn["tools"];
  response: CapturedTurn["response"];
  next_state: { role: string; messages: unknown[]; text: string } | null;
  closed_by: ClosedTurn["closedBy"] | "failed";
  prompt_length: number;
  /** Not written by the proxy (the messages and tools reproduce the prompt); allowed for records written elsewhere. */
  prompt_ids?: number[];
  response_ids: number[];
  response_log_probs: number[];
  /** Passthrough turns only: response positions whose log-prob is a 0 placeholder (no matching engine value). */
  missing_log_probs?: number[];
  finish_reason: CapturedTurn["finishReason"];
  weight_versions: CapturedTurn["weightVersions"];
  decided_by: CapturedTurn["decidedBy"];
  approximate: boolean;
  started_at: number;
  first_token_at: number | null;
  ended_at: number;
}

export class TurnRecords {
  readonly file: string;
  private chain: Promise<void> = Promise.resolve();
  private handle: Promise<FileHandle> | null = null;
  private failures = 0;

  constructor(
    recordsDir: string,
    private readonly onWriteError: (error: Error) => void = () => {},
  ) {
    this.file = path.join(recordsDir, "turns.jsonl");
  }

  /** Appends a closed turn (or a turn that could not be completed, closedBy "failed"). */
  append(turn: CapturedTurn & { nextState?: ClosedTurn["nextState"]; closedBy?: ClosedTurn["closedBy"] }): Promise<void> {
    const record: TurnRecord = {
      version: turn.version,
      session_id: turn.sessionId,
      turn: turn.turn,
      messages: turn.messages,
      tools: turn.tools,
      response: turn.response,
      next_state: turn.nextState ? { role: turn.nextState.role, messages: turn.nextState.messages, text: turn.nextState.text } : null,
      closed_by: turn.closedBy ?? "failed",
      prompt_length: turn.promptIds.length,
      response_ids: turn.responseIds,
      response_log_probs: turn.responseLogProbs,
      ...(turn.missingLogProbs && turn.missingLogProbs.length > 0 ? { missing_log_probs: turn.missingLogProbs } : {}),
      finish_reason: turn.finishReason,
      weight_versions: turn.weightVersions,
      decided_by: turn.decidedBy,
      approximate: turn.approximate,
      started_at: turn.startedAt,
      first_token_at: turn.firstTokenAt,
      ended_at: turn.endedAt,
    };
    const line = JSON.stringify(record) + "\n";
    this.chain = this.chain
      .then(() => this.write(line))
      .catch((error: Error) => {
        this.failures++;
        this.handle = null; // open (and create) the file again next time
        this.onWriteError(error);
      });
    return this.chain;
  }

  /** Resolves when every append so far is on disk. */
  flush(): Promise<void> {
    return this.chain;
  }

  /** Flushes and closes the file (a later append opens it again). */
  async close(): Promise<void> {
    await this.chain;
    const handle = this.handle;
    this.handle = null;
    if (handle) await (await handle.catch(() => null))?.close();
  }

  get writeFailures(): number {
    return this.failures;
  }

  private async write(line: string): Promise<void> {
    this.handle ??= (async () => {
      await mkdir(path.dirname(this.file), { recursive: true });
      const handle = await open(this.file, "a", 0o600);
      await chmod(this.file, 0o600);
      return handle;
    })();
    await (await this.handle).appendFile(line);
  }
}
