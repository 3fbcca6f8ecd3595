// <recordsDir>/turns.jsonl: one line per closed (or failed) main turn, appended to a JsonlAppendFile (mode 0600,
// lines in order, never interleaved). Ignores judging and samples.
import path from "node:path";
import type { CapturedTurn, ClosedTurn } from "../../contracts/turn.ts";
import { JsonlAppendFile } from "../records/jsonl-append-file.ts";

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
  private appender: JsonlAppendFile;
  private failures = 0;

  constructor(
    recordsDir: string,
    private readonly onWriteError: (error: Error) => void = () => {},
  ) {
    this.file = path.join(recordsDir, "turns.jsonl");
    this.appender = new JsonlAppendFile(this.file);
  }

  /** Appends a closed turn (or a turn that could not be completed, closedBy "failed"); a failed write is reported, not thrown. */
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
    return this.appender.append(record).catch((error: Error) => {
      this.failures++;
      this.onWriteError(error);
    });
  }

  /** Flushes and closes the file (a later append opens it again). */
  async close(): Promise<void> {
    const closing = this.appender;
    this.appender = new JsonlAppendFile(this.file);
    await closing.close();
  }

  get writeFailures(): number {
    return this.failures;
  }
}
