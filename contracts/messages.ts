// Anthropic Messages API request shapes as the proxy accepts them (zod, parsed once at the HTTP edge): system,
// content blocks, tools with input_schema, sampling. Only what the proxy reads is typed strictly.
import { z } from "zod";

const textBlockSchema = z.object({ type: z.literal("text"), text: z.string() }).passthrough();

const toolResultBlockSchema = z
  .object({
    type: z.literal("tool_result"),
    tool_use_id: z.string(),
    content: z.union([z.string(), z.array(z.object({ type: z.string() }).passthrough())]).optional(),
    is_error: z.boolean().optional(),
  })
  .passthrough();

/** Blocks a text prompt cannot carry: accepted by the schema, refused by name when the request is converted. */
const UNRENDERED = ["image", "document", "search_result", "server_tool_use", "web_search_tool_result", "container_upload"] as const;

const BLOCK_TYPES = ["text", "tool_use", "tool_result", "thinking", "redacted_thinking", ...UNRENDERED];

export const contentBlockSchema = z.discriminatedUnion(
  "type",
  [
    textBlockSchema,
    z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }).passthrough(),
    toolResultBlockSchema,
    z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string().optional() }).passthrough(),
    z.object({ type: z.literal("redacted_thinking"), data: z.string() }).passthrough(),
    z.object({ type: z.enum(UNRENDERED) }).passthrough(),
  ],
  { error: `expected a content block of type ${BLOCK_TYPES.map((type) => JSON.stringify(type)).join(", ")}` },
);
export type ContentBlock = z.infer<typeof contentBlockSchema>;

export const anthropicMessageSchema = z
  // (Claude Code 2.1 puts a `system` message after the first user turn: its environment and deferred tools)
  .object({ role: z.enum(["user", "assistant", "system"]), content: z.union([z.string(), z.array(contentBlockSchema)]) })
  .passthrough();
export type AnthropicMessage = z.infer<typeof anthropicMessageSchema>;

export const anthropicToolSchema = z
  .object({
    type: z.literal("custom", { error: "only client tools (name, description, input_schema) are served, not server tools" }).optional(),
    name: z.string(),
    description: z.string().optional(),
    input_schema: z.record(z.string(), z.unknown()),
  })
  .passthrough();

export const messagesRequestSchema = z
  .object({
    model: z.string(),
    max_tokens: z.number().int().positive(),
    messages: z.array(anthropicMessageSchema).min(1, "messages must hold at least one message"),
    system: z.union([z.string(), z.array(textBlockSchema)]).optional(),
    tools: z.array(anthropicToolSchema).optional(),
    tool_choice: z
      .object({ type: z.enum(["auto", "any", "tool", "none"]), name: z.string().optional(), disable_parallel_tool_use: z.boolean().optional() })
      .passthrough()
      .optional(),
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().gt(0).max(1).optional(),
    top_k: z.number().int().min(1).optional(),
    stop_sequences: z.array(z.string()).optional(),
    stream: z.boolean().optional(),
    metadata: z.object({ user_id: z.string().nullable().optional() }).passthrough().optional(),
    thinking: z.object({ type: z.string() }).passthrough().optional(),
  })
  .passthrough();
export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
