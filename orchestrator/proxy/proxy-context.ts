// What a request handler needs from the running proxy: the deps, the session tracker, the prompt builder,
// the turn records and shared counters. A plain bag of references; owns no behaviour.
import type { EventBus } from "../event-bus.ts";
import type { SglangClient } from "../../lib/sglang/sglang-client.ts";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import type { PromptBuilder } from "../capture/prompt-builder.ts";
import type { TurnRecords } from "../records/turn-records.ts";
import type { MessageDigests } from "../sessions/message-digest.ts";
import type { SessionTracker } from "../sessions/session-tracker.ts";

export interface ProxyDeps {
  recipe: Recipe;
  policy: SglangClient;
  tokenizer: ModelTokenizer;
  template: ChatTemplate;
  bus: EventBus;
  onTurnClosed(turn: ClosedTurn): void;
  onFeedback?(body: unknown, headers: Record<string, string | undefined>): Promise<{ status: number; body: unknown }>;
  onWeightVersion?(version: string): void;
  readiness(): { ready: boolean; reason: string; retryAfterS: number };
  apiKey: string | undefined;
  recordsDir: string;
  /** Worker threads that build prompts (template + tokenizer) off the event loop; default min(4, cores − 2), 0 = inline. */
  promptWorkers?: number;
  /** Encode each long reply's segments for the session's next prompt in a prompt worker (PromptBuilder.warmReply); default true. */
  warmReplies?: boolean;
}

export interface ProxyCounters {
  main: number;
  side: number;
  inFlight: number;
  lastWeightVersion: string | null;
}

export interface ProxyContext {
  deps: ProxyDeps;
  sessions: SessionTracker;
  prompts: PromptBuilder;
  records: TurnRecords;
  digests: MessageDigests;
  counters: ProxyCounters;
  /** Aborted by close() once the grace period is over. */
  shutdown: AbortSignal;
  newSessionId(): string;
}

export function noteWeightVersion(context: ProxyContext, version: string): void {
  if (version === context.counters.lastWeightVersion) return;
  context.counters.lastWeightVersion = version;
  context.deps.onWeightVersion?.(version);
}
