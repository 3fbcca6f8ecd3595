// POST /v1/feedback: validates the body (zod; 400 naming the field), finds the turn (404 when unknown), and holds
// the feedback for a turn not judged yet, re-judges a judged turn that made no sample, refuses (409) otherwise.
import type { Method } from "../../contracts/recipe.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { METHOD_NEEDS } from "../samples/sample-decision.ts";
import { feedbackBodySchema } from "./explicit-feedback.ts";
import type { TurnLedger } from "./turn-ledger.ts";

export type FeedbackHeaders = Record<string, string | string[] | undefined>;

export interface FeedbackReply {
  status: number;
  body: unknown;
}

export interface FeedbackContext {
  method: Method;
  ledger: TurnLedger;
  rejudge: (turn: ClosedTurn) => void;
}

function problem(status: number, field: string | null, message: string): FeedbackReply {
  return { status, body: { error: { message: field ? `${field}: ${message}` : message, field, type: status === 400 ? "invalid_request_error" : status === 404 ? "not_found" : "conflict" } } };
}

export async function handleFeedbackRequest(body: unknown, _headers: FeedbackHeaders, context: FeedbackContext): Promise<FeedbackReply> {
  const parsed = feedbackBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join(".") : "body";
    return problem(400, field, issue.message);
  }
  const feedback = parsed.data;
  if (feedback.hint !== undefined && !METHOD_NEEDS[context.method].hint) {
    return problem(400, "hint", "method binary uses no hints; send a score, or run method opd or combine");
  }
  const { ledger } = context;
  const latest = ledger.latestTurn(feedback.session_id);
  if (latest === undefined || latest < 0) return problem(404, "session_id", `no main turn of session ${JSON.stringify(feedback.session_id)} is known`);
  const turn = feedback.turn ?? latest;
  const entry = ledger.entry(feedback.session_id, turn);
  if (!entry) return problem(404, "turn", `turn ${turn} of session ${JSON.stringify(feedback.session_id)} is not known (latest is ${latest})`);

  const explicit = { score: feedback.score ?? null, hint: feedback.hint ?? null, source: "endpoint" as const };
  const target = { session_id: feedback.session_id, turn };
  switch (entry.state) {
    case "open":
      ledger.hold(feedback.session_id, turn, explicit);
      return { status: 202, body: { ...target, state: "held", detail: "used when the turn closes" } };
    case "judging":
      ledger.hold(feedback.session_id, turn, explicit);
      return { status: 202, body: { ...target, state: "held", detail: "the turn is being judged; used if that makes no sample" } };
    case "aborted": {
      const complete = ledger.latestCompleteBefore(feedback.session_id, turn);
      const instead = complete === undefined ? "" : `; the latest complete turn before it is ${complete} (send "turn": ${complete})`;
      return problem(409, "turn", `turn ${turn} of session ${JSON.stringify(feedback.session_id)} was aborted before it completed and is never trained${instead}`);
    }
    case "sample":
      return problem(409, "turn", `turn ${turn} of session ${JSON.stringify(feedback.session_id)} already made sample ${entry.sampleId}; feedback can no longer change it`);
    case "no-sample": {
      const stored = ledger.storedTurn(feedback.session_id, turn);
      if (!stored) return problem(409, "turn", `turn ${turn} was judged without a sample and is no longer kept in memory`);
      ledger.hold(feedback.session_id, turn, explicit);
      context.rejudge(stored);
      return { status: 202, body: { ...target, state: "rejudging", detail: "the turn made no sample; judged again with this feedback" } };
    }
  }
}
