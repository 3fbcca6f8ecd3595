// The recent responses of the Responses API that a request may go on from (previous_response_id): each one's
// conversation, input and output, without its instructions. Bounded (least recently used go first); ignores HTTP.
import type { ChatMessage } from "../../../contracts/chat.ts";
import { LruCache } from "../../../lib/lru-cache.ts";

export class ResponseStore {
  private readonly conversations: LruCache<string, readonly ChatMessage[]>;

  constructor(capacity: number) {
    this.conversations = new LruCache(capacity);
  }

  keep(responseId: string, conversation: readonly ChatMessage[]): void {
    this.conversations.set(responseId, conversation);
  }

  /** The conversation up to and including the response, or undefined when it is not (or no longer) held. */
  conversation(responseId: string): readonly ChatMessage[] | undefined {
    return this.conversations.get(responseId);
  }
}
