// POST /v1/episodes/{id}/outcome: an agent harness that runs its own episodes through the proxy (X-Episode-Id,
// X-Task-Id) reports how one ended, {"score": s in [0, 1]} or {"failed": "why"}, optionally with the episode's
// messages (the tool results after its last answer are that step's next state). The episode's last step closes, and
// the episode-end event carries the outcome to judging (episode-book.ts) and status. Bad input changes nothing.
import { z } from "zod";
import { chatMessageSchema } from "../../contracts/chat.ts";
import type { ProxyContext } from "./proxy-context.ts";
import { openAiError, type OpenAiError } from "./openai-errors.ts";

/** messages: the episode's whole history, optional: what follows the last step's answer is that step's next state. */
const messages = z.array(chatMessageSchema).optional();
const outcomeSchema = z.union([
  z.object({ score: z.number().min(0).max(1), messages }).strict(),
  z.object({ failed: z.string().min(1), messages }).strict(),
]);

/** The route's path pattern; the id is URL-decoded. */
export const EPISODE_OUTCOME_PATH = /^\/v1\/episodes\/([^/]+)\/outcome$/;

export function reportEpisodeOutcome(context: ProxyContext, episodeId: string, body: unknown): { status: number; body: unknown } | OpenAiError {
  const parsed = outcomeSchema.safeParse(body);
  if (!parsed.success) {
    return openAiError(400, 'the outcome must be {"score": <number in [0, 1]>} (the environment\'s score) or {"failed": "<why>"} (no evaluation)', { param: "score", code: "invalid_outcome" });
  }
  const check = context.episodes.end(episodeId);
  if (!check.ok) return openAiError(check.status, check.message, { code: check.code });
  context.sessions.endSession(episodeId, parsed.data.messages);
  const score = "score" in parsed.data ? parsed.data.score : null;
  const failure = "failed" in parsed.data ? parsed.data.failed : null;
  context.deps.bus.emit({ type: "episode-end", episodeId, groupId: check.groupId, score, failure, steps: check.steps, weightVersion: check.lastVersion });
  return { status: 200, body: { ok: true, episode_id: episodeId, group_id: check.groupId, steps: check.steps, score, failed: failure } };
}
