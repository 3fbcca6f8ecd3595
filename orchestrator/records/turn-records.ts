// <recordsDir>/turns.jsonl: one line per closed (or failed) main turn, appended to a JsonlAppendFile (mode 0600,
// lines in order, never interleaved). Ignores judging and samples.
import { randomBytes } from "node:crypto";
import path from "node:path";
import type { ChatMessage } from "../../contracts/chat.ts";
import type { CapturedTurn, ClosedTurn } from "../../contracts/turn.ts";
import { JsonlAppendFile } from "./jsonl-append-file.ts";
import { LruCache } from "../../lib/lru-cache.ts";

/**
 * Message texts at least this long are written from a cached copy of their JSON: the 48 KB system prompt, a pasted
 * file or a long reply, which every later line of the session repeats (serialising and encoding them again would cost the
 * proxy's thread time on every turn).
 */
const CACHED_TEXT_CHARS = 2048;
/** Texts whose JSON is longer are written from their own JSON each time (128 cache entries of at most this: 32 MB). */
const MAX_CACHED_JSON_BYTES = 256 * 1024;

export interface TurnRecord {
  version: number;
  session_id: string;
  /** A step of a general-agent episode: the episode (= session_id) and its task group. */
  episode?: { id: string; group_id: string };
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
  /** The sampling the response was drawn with, and what the client asked for otherwise (main turns). */
  sampling?: CapturedTurn["sampling"];
  started_at: number;
  first_token_at: number | null;
  ended_at: number;
}

/** A closed (or failed) turn as its line in turns.jsonl. */
export function turnRecord(turn: CapturedTurn & { nextState?: ClosedTurn["nextState"]; closedBy?: ClosedTurn["closedBy"] }): TurnRecord {
  return {
    version: turn.version,
    session_id: turn.sessionId,
    ...(turn.episode ? { episode: { id: turn.episode.id, group_id: turn.episode.groupId } } : {}),
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
    ...(turn.sampling ? { sampling: turn.sampling } : {}),
    started_at: turn.startedAt,
    first_token_at: turn.firstTokenAt,
    ended_at: turn.endedAt,
  };
}

/**
 * Least time between two writes of turns.jsonl. Each write is a writev and an fsync on libuv's thread pool, and each
 * wakes a pool thread that the proxy's event loop then waits behind on a busy machine (a cost a CPU profile shows at
 * high concurrency). Lines closed within this interval go out together;
 * a crash can lose at most this much more of the records than an fsync per line would.
 */
export const COMMIT_INTERVAL_MS = 20;

export class TurnRecords {
  readonly file: string;
  private appender: JsonlAppendFile;
  private failures = 0;
  private readonly textJson = new LruCache<string, Buffer>(128);
  /** Stands in a line's JSON for a cached text (with its index); a random part no message text can guess. */
  private readonly marker = `\u0000${randomBytes(8).toString("hex")}:`;

  constructor(
    recordsDir: string,
    private readonly onWriteError: (error: Error) => void = () => {},
  ) {
    this.file = path.join(recordsDir, "turns.jsonl");
    this.appender = new JsonlAppendFile(this.file, { commitIntervalMs: COMMIT_INTERVAL_MS });
  }

  /** Appends a closed turn (or a turn that could not be completed, closedBy "failed"); a failed write is reported, not thrown. */
  append(turn: CapturedTurn & { nextState?: ClosedTurn["nextState"]; closedBy?: ClosedTurn["closedBy"] }): Promise<void> {
    return this.appender.appendLine(this.lineParts(turnRecord(turn))).catch((error: Error) => {
      this.failures++;
      this.onWriteError(error);
    });
  }

  /**
   * The record's line as bytes, in parts: exactly JSON.stringify(record), with the JSON of each long message text (in
   * `messages` and in the next state's) copied from the cache rather than made again.
   */
  private lineParts(record: TurnRecord): Buffer[] {
    const texts: string[] = [];
    const swap = (messages: unknown[]): unknown[] =>
      messages.map((message) => {
        const content = (message as ChatMessage).content;
        if (typeof content !== "string" || content.length < CACHED_TEXT_CHARS) return message;
        texts.push(content);
        return { ...(message as object), content: `${this.marker}${texts.length - 1}` };
      });
    const messages = swap(record.messages);
    const nextState = record.next_state ? { ...record.next_state, messages: swap(record.next_state.messages) } : null;
    if (texts.length === 0) return [Buffer.from(JSON.stringify(record), "utf8")];
    const json = JSON.stringify({ ...record, messages, next_state: nextState });
    const parts: Buffer[] = [];
    const opening = JSON.stringify(this.marker).slice(0, -1); // the marker as it appears in the JSON, with its opening quote
    let from = 0;
    for (let at = json.indexOf(opening); at >= 0; at = json.indexOf(opening, from)) {
      const end = json.indexOf('"', at + opening.length);
      const text = texts[Number(json.slice(at + opening.length, end))]!;
      let bytes = this.textJson.get(text);
      if (bytes === undefined) {
        bytes = Buffer.from(JSON.stringify(text), "utf8");
        if (bytes.length <= MAX_CACHED_JSON_BYTES) this.textJson.set(text, bytes);
      }
      parts.push(Buffer.from(json.slice(from, at), "utf8"), bytes);
      from = end + 1;
    }
    parts.push(Buffer.from(json.slice(from), "utf8"));
    return parts;
  }

  /** Flushes and closes the file (a later append opens it again). */
  async close(): Promise<void> {
    const closing = this.appender;
    this.appender = new JsonlAppendFile(this.file, { commitIntervalMs: COMMIT_INTERVAL_MS });
    await closing.close();
  }

  get writeFailures(): number {
    return this.failures;
  }
}
