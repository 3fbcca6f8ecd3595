// The messages between the prompt pool and its worker threads: a job (what to render or encode) and its result.
// Types only; the pool and the worker own the behaviour.
import type { ChatMessage, Tool } from "../../contracts/chat.ts";

export interface PromptJob {
  id: number;
  /**
   * build: from messages; body: from the raw request body (transferred, parsed here as the proxy parses it); encode:
   * text; segments: plain segments (no added tokens), each encoded on its own (for the main thread's segment cache).
   */
  kind: "build" | "body" | "encode" | "segments";
  segments?: string[];
  body?: ArrayBuffer;
  messages?: ChatMessage[];
  tools?: Tool[] | null;
  extra?: Record<string, unknown>;
  text?: string;
}

export type PromptJobResult =
  | { id: number; ok: true; ids: Int32Array; tail: string; /** segments jobs: how many ids each segment has */ lengths?: number[] }
  | { id: number; ok: false; code: string; message: string };
