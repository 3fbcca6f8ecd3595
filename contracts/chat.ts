// OpenAI chat-completions shapes as the proxy accepts them (zod, parsed once at the HTTP edge).
// Only what openclaw-rl reads is typed strictly; unknown request fields pass through untouched.
import { z } from "zod";

/**
 * A typed content part: `{type: "text", text}`, or any other type (image_url, input_audio, file, refusal, …), which
 * passthrough mode hands to the engine as it is and tokens mode, rendering the prompt as text, refuses by name.
 */
export const contentPartSchema = z
  .object({ type: z.string() })
  .passthrough()
  .superRefine((part, context) => {
    if (part.type === "text" && typeof part.text !== "string") context.addIssue({ code: "custom", path: ["text"], message: "a text part needs its text as a string" });
  });
export type ContentPart = z.infer<typeof contentPartSchema>;

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
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullable().optional(),
    tools: z.array(toolSchema).nullable().optional(),
    tool_choice: z
      .union([z.enum(["none", "auto", "required"]), z.object({ type: z.literal("function"), function: z.object({ name: z.string() }).passthrough() }).passthrough()], {
        error: 'expected "none", "auto", "required" or {"type": "function", "function": {"name": …}}',
      })
      .nullable()
      .optional(),
    response_format: z
      .object({ type: z.enum(["text", "json_object", "json_schema"]), json_schema: z.object({ name: z.string() }).passthrough().optional() })
      .passthrough()
      .nullable()
      .optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().gt(0).max(1).nullable().optional(),
    top_k: z
      .number()
      .int()
      .refine((value) => value === -1 || value >= 1, "top_k must be -1 (no limit) or at least 1")
      .nullable()
      .optional(),
    min_p: z.number().min(0).max(1).nullable().optional(),
    repetition_penalty: z.number().gt(0).max(2).nullable().optional(),
    min_tokens: z.number().int().min(0).nullable().optional(),
    max_tokens: z.number().int().positive().nullable().optional(),
    max_completion_tokens: z.number().int().positive().nullable().optional(),
    stop: z.union([z.string(), z.array(z.string())]).nullable().optional(),
    n: z.number().int().nullable().optional(),
    seed: z.number().int().nullable().optional(),
    presence_penalty: z.number().min(-2).max(2).nullable().optional(),
    frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
    logprobs: z.boolean().nullable().optional(),
    top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
    chat_template_kwargs: z
      .record(z.string(), z.unknown(), { error: "expected an object of template variables (such as enable_thinking)" })
      .nullable()
      .optional(),
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
