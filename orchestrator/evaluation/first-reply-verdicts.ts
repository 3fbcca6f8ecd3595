// The paper's measure on a live run: each session's first reply, satisfied or not, as the judge scored it from the
// user's answer (judgements.jsonl, turn 0, the evaluation score > 0), in the order sessions were judged; and the
// line `eval` prints from them. Reads records; changes nothing. Sessions no judge score exists for are left out.
import { createReadStream, existsSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { SESSIONS_UNTIL_CAP, SESSIONS_UNTIL_STREAK, sessionsUntilPreference } from "./sessions-until.ts";

export interface FirstReplyVerdicts {
  /** Per session, in the order its first turn was judged: the judge's score of the first reply was above 0. */
  verdicts: boolean[];
  /** Sessions whose first reply a user answered but no score exists for (opd judges hints only; a judge that failed). */
  unscored: number;
}

export async function firstReplyVerdicts(runDir: string): Promise<FirstReplyVerdicts> {
  const file = path.join(runDir, "judgements.jsonl");
  const verdicts: boolean[] = [];
  let unscored = 0;
  if (!existsSync(file)) return { verdicts, unscored };
  const seen = new Set<string>();
  for await (const line of createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity })) {
    const record = parseLine(line);
    if (record === null || record.turn !== 0 || record.nextStateRole !== "user" || record.episode || seen.has(record.sessionId)) continue;
    seen.add(record.sessionId);
    if (typeof record.evalScore === "number") verdicts.push(record.evalScore > 0);
    else unscored += 1;
  }
  return { verdicts, unscored };
}

/** The line under `eval`'s table: sessions until the first reply satisfied 3 sessions in a row, from the judge's scores. */
export async function firstReplyLine(runDir: string): Promise<string> {
  const { verdicts, unscored } = await firstReplyVerdicts(runDir);
  const head = `sessions until the first reply satisfies ${SESSIONS_UNTIL_STREAK} sessions in a row`;
  const skipped = unscored > 0 ? `; ${unscored} sessions without a judge score left out` : "";
  if (verdicts.length === 0) return `${head}: – (no session's first reply has a judge score yet${unscored > 0 ? ": the method judges hints only, or the judge failed" : ""})`;
  const result = sessionsUntilPreference(verdicts);
  if (result.reached) return `${head}: ${result.sessions} (the paper's measure, capped at ${SESSIONS_UNTIL_CAP}, from the judge's score of each session's first reply, ${verdicts.length} sessions${skipped})`;
  if (verdicts.length >= SESSIONS_UNTIL_CAP) return `${head}: ${SESSIONS_UNTIL_CAP} (capped: not within the first ${SESSIONS_UNTIL_CAP} sessions${skipped})`;
  return `${head}: not yet (${verdicts.length} sessions so far, the count is capped at ${SESSIONS_UNTIL_CAP}${skipped})`;
}

function parseLine(line: string): { sessionId: string; turn: number; nextStateRole: unknown; episode?: unknown; evalScore: unknown } | null {
  try {
    const value = JSON.parse(line) as { sessionId?: unknown; turn?: unknown; nextStateRole?: unknown; episode?: unknown; evalScore?: unknown };
    return typeof value.sessionId === "string" && typeof value.turn === "number" ? { sessionId: value.sessionId, turn: value.turn, nextStateRole: value.nextStateRole, episode: value.episode, evalScore: value.evalScore } : null;
  } catch {
    return null; // (a torn last line)
  }
}
