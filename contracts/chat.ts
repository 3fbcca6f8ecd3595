// OpenAI chat-completions shapes as the proxy accepts them (zod, parsed once at the HTTP edge).
// Only what openclaw-rl reads is typed strictly; unknown request fields pass through untouched.
import { z } from "zod";

export const textPartSchema = z.object({ type: z.literal("text"), text: z.string() }).passthrough();
export const imagePartSchema = z.object({ type: z.literal("image_url"), image_url: z.unknown() }).passthrough();
export const contentPartSchema = z.union([textPartSchema, imagePartSchema]);

export const toolCallSchema = z
  .object({
    id: z.string(),
    type: z.literal("function").default("function"),
    function: z.object({ name: z.string(), arguments: z.string() }).passthrough(),
  })
  .passthrough();
export type ToolCall = z.infer<typeof toolCallSchema>;

const contentSchema = z.union([z.string(), z.array(contentPartSchema)]);

export const chatMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: contentSchema, name: z.string().optional() }).passthrough(),
  z.object({ role: z.literal("developer"), content: contentSchema, name: z.string().optional() }).passthrough(),
  z.object({ role: z.literal("user"), content: contentSchema, name: z.string().optional() }).passthrough(),
  z
    .object({
      role: z.literal("assistant"),
      content: contentSchema.nullable().optional(),
      reasoning_content: z.string().nullable().optional(),
      tool_calls: z.array(toolCallSchema).nullable().optional(),
      name: z.string().optional(),
    })
    .passthrough(),
  z.object({ role: z.literal("tool"), content: contentSchema, tool_call_id: z.string() }).passthrough(),
]);
export type ChatMessage = z.infer<typeof chatMessageSchema>;

export const toolSchema = z
  .object({
    type: z.literal("function"),
    function: z.object({ name: z.string(), description: z.string().optional(), parameters: z.unknown().optional() }).passthrough(),
  })
  .passthrough();
export type Tool = z.infer<typeof toolSchema>;

export const chatRequestSchema = z
  .object({
    model: z.string().optional(),
    messages: z.array(chatMessageSchema).min(1, "messages must hold at least one message"),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullable().optional(),
    tools: z.array(toolSchema).nullable().optional(),
    tool_choice: z.unknown().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().gt(0).max(1).nullable().optional(),
    top_k: z.number().int().nullable().optional(),
    max_tokens: z.number().int().positive().nullable().optional(),
    max_completion_tokens: z.number().int().positive().nullable().optional(),
    stop: z.union([z.string(), z.array(z.string())]).nullable().optional(),
    n: z.number().int().nullable().optional(),
    seed: z.number().int().nullable().optional(),
    presence_penalty: z.number().nullable().optional(),
    frequency_penalty: z.number().nullable().optional(),
    logprobs: z.boolean().nullable().optional(),
    top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
    session_id: z.string().optional(),
    turn_type: z.enum(["main", "side"]).optional(),
    session_done: z.boolean().optional(),
  })
  .passthrough();
export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** The assistant message the proxy returns (and records as the turn's response). */
export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  reasoning_content?: string | null;
  tool_calls?: ToolCall[];
}
