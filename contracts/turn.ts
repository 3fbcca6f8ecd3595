// A captured main-line turn: what the engine produced, token for token, and how the proxy decided it was
// a main turn of this session. Judging reads closed turns; it never sees HTTP.
import type { AssistantMessage, ChatMessage, Tool } from "./chat.ts";

export const TURN_RECORD_VERSION = 1 as const;

/** How the session id and the turn type were determined, so a user can see why a turn was (not) trained. */
export interface TurnDecision {
  session: "header:x-episode-id" | "header:x-session-id" | "header:session_id" | "header:x-session-affinity" | "body:session_id" | "client-conversation" | "openclaw-runtime-marker" | "history-prefix" | "new-session";
  turnType: "header:x-turn-type" | "episode-step" | "body:turn_type" | "utility-model" | "client-side-request" | "side-system-prompt" | "openclaw-compaction" | "no-tools-side" | "agent-conversation" | "default-main";
  /** Free text: e.g. "extends 5 of 7 messages of session abc". */
  reason: string;
}

/** Token span produced by one weight version (a generation continued after a weight update has two). */
export interface WeightVersionSpan {
  version: string;
  start: number; // index into response ids, inclusive
  end: number; // exclusive
}

export type FinishReason = "stop" | "length" | "tool_calls" | "abort";

/** A step of a general-agent episode (a request with X-Episode-Id): the session is the episode, its main turns the steps. */
export interface EpisodeRef {
  id: string;
  /** The task group: X-Task-Id, else the episode id without its last `:sample` part (`task_key:uid:group`). */
  groupId: string;
}

/**
 * The sampling a turn was drawn with, and whether that is the trainer's distribution. Main turns are drawn at the
 * rollout temperature with no filter and no penalty (what slime recomputes log-probs with), whatever the client sends,
 * unless the recipe honours the client's settings (sampling.client_settings: honor); side turns use the client's own.
 */
export interface TurnSampling {
  temperature: number;
  top_p: number;
  top_k: number;
  /** Set only where a client's value was used (side turns, or honour): min_p and the penalties. */
  min_p?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  repetition_penalty?: number;
  /** The client's min_tokens (vLLM's name; SGLang's min_new_tokens masks the end of text until then). */
  min_tokens?: number;
  /** The distribution slime trains with: rollout temperature, no filter, no penalty, no grammar. */
  onPolicy: boolean;
  /** Why the output was constrained by a grammar (tool_choice required / a named function), if it was. */
  constrained?: string;
  /** What the client asked for that this turn was not drawn with (main turns), e.g. { temperature: 1 }. */
  clientAsked: Record<string, number>;
}

export interface CapturedTurn {
  version: typeof TURN_RECORD_VERSION;
  sessionId: string;
  /** Set for a step of an episode (its step index is `turn`). */
  episode?: EpisodeRef;
  turn: number; // 0-based main-turn index within the session
  decidedBy: TurnDecision;
  messages: ChatMessage[]; // the request's messages, ephemeral context blocks included (as sent)
  tools: Tool[] | null;
  /** The request's chat_template_kwargs (e.g. enable_thinking), needed to render the same prompt again. */
  templateKwargs?: Record<string, unknown>;
  /**
   * The prompt as sent to the engine. A typed array (its store is off the JS heap, so a 13K-token prompt held for a
   * whole request is not copied by young-generation collections); JSON.stringify does not write it as an array.
   */
  promptIds: Int32Array;
  responseIds: number[];
  responseLogProbs: number[]; // one per response id, exactly as the engine returned them
  response: AssistantMessage;
  finishReason: FinishReason;
  weightVersions: WeightVersionSpan[];
  /** True for passthrough mode: ids re-tokenized from text, log-probs aligned approximately. */
  approximate: boolean;
  /**
   * Passthrough only: indices of response tokens the engine gave no matching log-prob for (its chat stream leaves out
   * a final empty-text step such as EOS; re-tokenized text can differ from what it generated). Their log-prob is a
   * 0 placeholder and samples leave them out of the loss.
   */
  missingLogProbs?: number[];
  /** The sampling it was drawn with (absent in records written before it was recorded). */
  sampling?: TurnSampling;
  startedAt: number; // ms epoch
  firstTokenAt: number | null;
  endedAt: number;
}

export type NextStateRole = "user" | "tool";

export interface NextState {
  role: NextStateRole;
  /** The messages that follow the turn's assistant message in the next history (user reply, or tool results). */
  messages: ChatMessage[];
  /** Their text joined, as the judge sees it. */
  text: string;
}

/** A turn handed to judging: closed by the next request of its session, by X-Session-Done, or by idle timeout. */
export interface ClosedTurn extends CapturedTurn {
  nextState: NextState | null;
  closedBy: "next-request" | "session-done" | "idle-timeout" | "evicted" | "shutdown";
  /** When it closed (ms epoch; absent where a test or an older record built it without). */
  closedAt?: number;
}
