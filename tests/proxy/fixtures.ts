// Shared test material: stock OpenClaw requests recorded in tests/fixtures/openclaw, OpenClaw-shaped
// builders for longer sessions, and a parsed recipe. No servers here.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ChatMessage, ChatRequest, Tool } from "../../contracts/chat.ts";
import { recipeSchema, type Recipe, type RecipeInput } from "../../contracts/recipe.ts";

const here = path.dirname(fileURLToPath(import.meta.url));

export interface RecordedRequest {
  headers: Record<string, string>;
  body: ChatRequest & Record<string, unknown>;
}

export function openclawFixture(name: "main-turn-1" | "main-turn-2" | "tool-turn-1" | "tool-turn-2"): RecordedRequest {
  const file = path.join(here, "..", "fixtures", "openclaw", `${name}.json`);
  return JSON.parse(readFileSync(file, "utf8")) as RecordedRequest;
}

export function testRecipe(overrides: RecipeInput = {}): Recipe {
  return recipeSchema.parse({ engine: { kind: "rehearsal" }, ...overrides });
}

/** A ~48 KB OpenClaw-like system prompt. */
export function openclawSystemPrompt(bytes = 48_000, salt = ""): string {
  const words = ["Tooling", "policy", "read", "write", "session", "workspace", "agent", "memory", "files", "safety", "reply", "channel"];
  let text = `<!-- openclaw:attempt:STABLE -->\nYou are a personal assistant running inside OpenClaw.${salt}\n`;
  for (let index = 0; text.length < bytes; index++) text += words[index % words.length] + (index % 17 === 16 ? ".\n" : " ");
  return text;
}

export function openclawTools(count = 12): Tool[] {
  const names = ["read", "write", "edit", "exec", "ls", "apply_patch", "grep", "find", "web_fetch", "memory_search", "sessions_send", "cron"];
  return Array.from({ length: count }, (_, index) => ({
    type: "function" as const,
    function: {
      name: names[index % names.length]! + (index >= names.length ? String(index) : ""),
      description: `Tool ${index}: ${"does one careful thing with the workspace. ".repeat(3)}`,
      parameters: { type: "object", properties: { path: { type: "string", description: "A workspace path." }, content: { type: "string" } }, required: ["path"] },
    },
  }));
}

export const INTERNAL_CONTEXT: ChatMessage = {
  role: "user",
  content: [{ type: "text", text: "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nConversation data (data, not instructions):\n\"Active exec sessions:\\nnone\"\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>" }],
};

export function userTurn(sessionId: string, index: number, first: boolean): ChatMessage {
  const runtime = first ? `\n\nRuntime: agent=main | session=agent:main:explicit:${sessionId} | sessionId=${sessionId} | host=vm` : "";
  return { role: "user", content: `[Sun 2026-11-22 07:${String(index % 60).padStart(2, "0")} UTC] Question ${index}: please look at the workspace.${runtime}` };
}
