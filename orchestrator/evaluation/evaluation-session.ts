// One evaluated conversation: the opener, then the policy's reply through the proxy marked side (X-Turn-Type: side:
// never judged, never a sample), the simulated user's next message, … for the opener's turns; then the scorer.
import type { PersonaOpener, SessionResult } from "../../contracts/evaluation.ts";
import { chatOnce, type ChatEndpoint } from "./chat-endpoint.ts";
import { scoreSession, type ScorerSettings } from "./session-scorer.ts";
import { simulateUserTurn, stripReasoning, type SimulatorSettings, type TranscriptTurn } from "./user-simulator.ts";

export interface SessionSettings {
  /** The proxy (its API key included); the session adds X-Turn-Type: side and its own X-Session-Id. */
  policy: ChatEndpoint;
  policySampling: { temperature: number; max_tokens: number };
  simulator: SimulatorSettings;
  scorer: ScorerSettings;
  /** Counted as they are sent (evaluation's cost in engine requests). */
  requests: { policy: number; simulator: number; scorer: number };
}

/** A stable 31-bit seed of (opener, sample, turn): the same in every version, so the sessions are paired. */
export function sessionSeed(openerId: string, sample: number, turn: number): number {
  let hash = 2166136261;
  for (const character of `${openerId}#${sample}#${turn}`) hash = Math.imul(hash ^ character.charCodeAt(0), 16777619);
  return (hash >>> 0) % 2 ** 31;
}

export async function runSession(settings: SessionSettings, opener: PersonaOpener, sample: number, label: string, signal?: AbortSignal): Promise<SessionResult> {
  const transcript: TranscriptTurn[] = [{ role: "user", content: opener.opener }];
  const policy: ChatEndpoint = { ...settings.policy, headers: { ...settings.policy.headers, "x-turn-type": "side", "x-session-id": `eval-${label}-${opener.id}-${sample}` } };
  try {
    for (let turn = 0; turn < opener.turns; turn += 1) {
      if (turn > 0) {
        settings.requests.simulator += 1;
        transcript.push({ role: "user", content: await simulateUserTurn(settings.simulator, opener, transcript, sessionSeed(opener.id, sample, turn), signal) });
      }
      settings.requests.policy += 1;
      const reply = await chatOnce(policy, transcript, { ...settings.policySampling, seed: sessionSeed(opener.id, sample, turn) }, signal);
      transcript.push({ role: "assistant", content: stripReasoning(reply) });
    }
  } catch (error) {
    return { openerId: opener.id, sample, transcript, votes: [], score: null, failure: (error as Error).message };
  }
  settings.requests.scorer += settings.scorer.votes;
  const { votes, score } = await scoreSession(settings.scorer, opener, transcript, sessionSeed(opener.id, sample, -1), signal);
  return { openerId: opener.id, sample, transcript, votes, score, failure: score === null ? "no valid scorer vote" : null };
}
