// judgements.jsonl: one line per judged turn (votes with their raw text, the decision, the kept hint, the sample
// made or the reason none was), append-only, mode 0600, in the run folder. Writing only; analysis reads the file.
import path from "node:path";
import type { SampleKind } from "../../contracts/sample.ts";
import { JsonlAppendFile } from "./jsonl-append-file.ts";
import type { Method } from "../../contracts/recipe.ts";
import type { HybridCase } from "../samples/hybrid-dispatch.ts";

export const JUDGEMENT_RECORD_VERSION = 1 as const;

export interface RecordedVote {
  index: number;
  score: number | null;
  hint?: string;
  raw: string;
  error: string | null;
  attempts: number;
  ms: number;
}

export interface JudgementRecord {
  version: typeof JUDGEMENT_RECORD_VERSION;
  at: number;
  sessionId: string;
  turn: number;
  method: Method;
  attempt: number;
  closedBy: string;
  nextStateRole: "user" | "tool" | null;
  explicit: { score: number | null; hint: string | null; source: string } | null;
  evaluation: { votes: RecordedVote[]; score: number | null; valid: number; failed: number; counts: Record<string, number> } | null;
  hint: { votes: RecordedVote[]; kept: string | null; fromVote: number | null; reason: string | null } | null;
  /**
   * promptReproduced: re-rendering the turn's messages gave exactly its prompt ids (see TeacherScorer). temperature:
   * what the teacher's log-probs were scored at; scoring: one prefill request (temperature 1), one request per
   * response position (any other temperature), or none (trainer: the sample carries the teacher's tokens to the
   * trainer's teacher); requests: how many were sent.
   */
  teacher: {
    ok: boolean;
    reason: string | null;
    promptLength: number | null;
    logprobStartLen: number | null;
    topk: number;
    promptReproduced: boolean | null;
    temperature: number;
    scoring: "prefill" | "per-position" | "trainer";
    requests: number;
  } | null;
  evalScore: number | null;
  /** hybrid: the dispatch case, the kept hints (shortest first) and the sample's candidate count (0 without one). */
  hybrid?: { case: HybridCase; hints: string[]; candidates: number };
  sample: { id: string; kind: SampleKind; reward: number; why: string; masked: boolean } | null;
  /** Why no sample was made (null when one was). */
  skipped: string | null;
  /**
   * A step of a general-agent episode: its index, the judge's step score (evalScore), and once its task group was
   * settled, the episode's outcome, the step reward r_t, the standardised advantage and whether it was trained (null
   * and false for a step that could not be: see skipped). partialGroup: why the group was settled short.
   */
  episode?: {
    id: string;
    groupId: string;
    stepIndex: number;
    stepScore: number | null;
    outcome: number | null;
    reward: number | null;
    advantage: number | null;
    trained: boolean;
    partialGroup?: string;
  };
  /** The sample gate refused the response (orchestrator/samples/sample-gate.ts); absent when it passed. */
  gate?: { category: string; reason: string };
}

export class JudgementRecords {
  private readonly file: JsonlAppendFile;

  constructor(recordsDir: string) {
    this.file = new JsonlAppendFile(path.join(recordsDir, "judgements.jsonl"));
  }

  get path(): string {
    return this.file.file;
  }

  write(record: JudgementRecord): Promise<void> {
    return this.file.append(record);
  }

  close(): Promise<void> {
    return this.file.close();
  }
}
