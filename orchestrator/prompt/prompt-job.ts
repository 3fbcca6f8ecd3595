// The messages between the prompt pool and its worker threads: a job (what to render) and its result (the prompt
// text). Types only; the pool and the worker own the behaviour.
import type { ChatMessage, Tool } from "../../contracts/chat.ts";

export interface PromptJob {
  id: number;
  /** build: from messages; body: from the raw request body (transferred, parsed here as the proxy parses it). */
  kind: "build" | "body";
  body?: ArrayBuffer;
  messages?: ChatMessage[];
  tools?: Tool[] | null;
  extra?: Record<string, unknown>;
}

export type PromptJobResult = { id: number; ok: true; text: string } | { id: number; ok: false; code: string; message: string };
