// What a request handler needs from the running proxy: the deps, the session tracker, the prompt builder,
// the turn records and shared counters. A plain bag of references; owns no behaviour.
import type { EventBus } from "../event-bus.ts";
import type { SglangClient } from "../../lib/sglang/sglang-client.ts";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import type { PromptBuilder } from "../prompt/prompt-builder.ts";
import type { TurnRecords } from "../records/turn-records.ts";
import type { ResponseStore } from "./apis/response-store.ts";
import type { MessageDigests } from "../sessions/message-digest.ts";
import type { SessionTracker } from "../sessions/session-tracker.ts";
import type { EpisodeRegistry } from "../episodes/episode-registry.ts";
import type { WeightVersionObserver } from "../weights/weight-version-tracker.ts";

export interface ProxyDeps {
  recipe: Recipe;
  policy: SglangClient;
  tokenizer: ModelTokenizer;
  template: ChatTemplate;
  /** SGLang's parser names for the policy's family (lib/model/model-family.ts parserNames); default: the recipe's with Qwen3's. */
  parsers?: { toolCallParser: string | null; reasoningParser: string | null };
  bus: EventBus;
  onTurnClosed(turn: ClosedTurn): void;
  onFeedback?(body: unknown, headers: Record<string, string | undefined>): Promise<{ status: number; body: unknown }>;
  /** The run's weight-version owner: told the version label of every generation step the engine answers. */
  versions?: WeightVersionObserver;
  readiness(): { ready: boolean; reason: string; retryAfterS: number };
  apiKey: string | undefined;
  recordsDir: string;
  /** Worker threads that render interpreted chat templates off the event loop; default min(4, cores − 2), 0 = inline. */
  promptWorkers?: number;
  /** Encode each long reply's segments ahead of the session's next prompt (PromptBuilder.warmReply); default true. */
  warmReplies?: boolean;
}

export interface ProxyCounters {
  main: number;
  side: number;
  inFlight: number;
}

export interface ProxyContext {
  deps: ProxyDeps;
  sessions: SessionTracker;
  prompts: PromptBuilder;
  records: TurnRecords;
  digests: MessageDigests;
  /** General-agent episodes whose steps come through the proxy (X-Episode-Id). */
  episodes: EpisodeRegistry;
  /** Recent Responses API answers, for requests that go on from one (previous_response_id). */
  responses: ResponseStore;
  counters: ProxyCounters;
  /** Aborted by close() once the grace period is over. */
  shutdown: AbortSignal;
  newSessionId(): string;
}
