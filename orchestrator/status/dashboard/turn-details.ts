// One turn's detail for the dashboard: its row from the event history plus its turn and judgement records
// (turns.jsonl / judgements.jsonl under the run folder), with secrets redacted and token arrays left out.
import { join } from "node:path";
import type { TurnRow } from "./dashboard-wire.ts";
import { RecordIndex, type RecordIndexLimits, type RecordLookup } from "./record-index.ts";

export interface TurnDetail {
  sessionId: string;
  turn: number;
  row: TurnRow | null;
  turnRecord: RecordLookup;
  judgementRecord: RecordLookup;
}

const secretKeyPattern = /^(authorization|proxy-authorization|x-api-key|api[-_]?key|apikey|api[-_]?token|access[-_]?token|secret|client[-_]?secret|password|cookie|set-cookie)$/i;
const secretValuePattern = /(Bearer\s+[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{16,})/g;
const maxStringChars = 64 * 1024;
const maxNumberArray = 64;

/** Session and turn of a record, whatever the writer called them (camelCase or snake_case). */
export function turnKeyOf(record: unknown): string | null {
  if (typeof record !== "object" || record === null) return null;
  const fields = record as Record<string, unknown>;
  const session = fields.sessionId ?? fields.session_id;
  const turn = fields.turn ?? fields.turnIndex ?? fields.turn_index;
  if (typeof session !== "string" || typeof turn !== "number" || !Number.isInteger(turn)) return null;
  return turnKey(session, turn);
}

export function turnKey(sessionId: string, turn: number): string {
  return `${sessionId}\u0000${turn}`;
}

/** A copy fit for the page: secrets masked, long token/log-prob arrays summarised, huge strings clipped. */
export function redactRecord(value: unknown, depth = 0): unknown {
  if (depth > 32) return "[nested too deep]";
  if (typeof value === "string") {
    const masked = value.replace(secretValuePattern, "[redacted]");
    return masked.length > maxStringChars ? `${masked.slice(0, maxStringChars)}… [${masked.length - maxStringChars} more characters]` : masked;
  }
  if (Array.isArray(value)) {
    if (value.length > maxNumberArray && value.every((item) => typeof item === "number" || Array.isArray(item))) {
      return `[${value.length} values not shown]`;
    }
    return value.map((item) => redactRecord(item, depth + 1));
  }
  if (typeof value === "object" && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = secretKeyPattern.test(key) ? "[redacted]" : redactRecord(item, depth + 1);
    return copy;
  }
  return value;
}

export class TurnDetails {
  private readonly turns: RecordIndex;
  private readonly judgements: RecordIndex;

  constructor(recordsDir: string, limits: Partial<RecordIndexLimits> = {}) {
    this.turns = new RecordIndex(join(recordsDir, "turns.jsonl"), turnKeyOf, limits);
    this.judgements = new RecordIndex(join(recordsDir, "judgements.jsonl"), turnKeyOf, limits);
  }

  async lookup(sessionId: string, turn: number, row: TurnRow | null): Promise<TurnDetail> {
    const key = turnKey(sessionId, turn);
    const [turnRecord, judgementRecord] = await Promise.all([this.turns.lookup(key), this.judgements.lookup(key)]);
    return { sessionId, turn, row, turnRecord: redactLookup(turnRecord), judgementRecord: redactLookup(judgementRecord) };
  }
}

function redactLookup(lookup: RecordLookup): RecordLookup {
  return lookup.found ? { found: true, record: redactRecord(lookup.record) } : lookup;
}
