// OpenAI Responses API request shapes as the proxy accepts them (zod, parsed once at the HTTP edge): input items,
// instructions, function tools, sampling. Only what the proxy reads is typed strictly; other fields pass through.
import { z } from "zod";

/** A content part of a message item: input_text / output_text carry text; any other type is refused by name later. */
const contentPartSchema = z
  .object({ type: z.string() })
  .passthrough()
  .superRefine((part, context) => {
    if ((part.type === "input_text" || part.type === "output_text") && typeof part.text !== "string") {
      context.addIssue({ code: "custom", path: ["text"], message: `an ${part.type} part needs its text as a string` });
    }
  });
export type ResponsesContentPart = z.infer<typeof contentPartSchema>;

const textListSchema = z.array(z.object({ type: z.string(), text: z.string() }).passthrough());

const messageItemSchema = z
  .object({
    type: z.literal("message"),
    role: z.enum(["user", "assistant", "system", "developer"]),
    content: z.union([z.string(), z.array(contentPartSchema)]),
    id: z.string().optional(),
  })
  .passthrough();

const functionCallItemSchema = z
  .object({ type: z.literal("function_call"), call_id: z.string(), name: z.string(), arguments: z.string(), id: z.string().optional() })
  .passthrough();

/**
 * A tool's output: the answer to a function_call (call_id), or, from Codex 0.171, output no call asked for, named by
 * name and namespace instead (its goal feature's `{"namespace": "agent", "name": "goal_objective"}`).
 */
const functionCallOutputItemSchema = z
  .object({
    type: z.literal("function_call_output"),
    call_id: z.string().optional(),
    name: z.string().optional(),
    namespace: z.string().optional(),
    output: z.union([z.string(), z.array(contentPartSchema)]),
  })
  .passthrough()
  .refine((item) => item.call_id !== undefined || item.name !== undefined, { path: ["call_id"], message: "a function_call_output needs its call_id (or, for output no call asked for, its name)" });

const reasoningItemSchema = z
  .object({ type: z.literal("reasoning"), summary: textListSchema.default([]), content: textListSchema.nullable().optional(), id: z.string().optional() })
  .passthrough();

const ITEM_TYPES = ["message", "function_call", "function_call_output", "reasoning"] as const;

/** An input item; an easy input message (`{role, content}`, no type) reads as a message item. */
export const responsesItemSchema = z.preprocess(
  (value) => (typeof value === "object" && value !== null && !Array.isArray(value) && !("type" in value) && "role" in value ? { ...value, type: "message" } : value),
  z.discriminatedUnion("type", [messageItemSchema, functionCallItemSchema, functionCallOutputItemSchema, reasoningItemSchema], {
    error: `expected an item of type ${ITEM_TYPES.map((type) => JSON.stringify(type)).join(", ")} (or a {role, content} message)`,
  }),
);
export type ResponsesItem = z.infer<typeof responsesItemSchema>;

export const responsesToolSchema = z
  .object({
    type: z.literal("function", { error: 'only tools of type "function" are served (the prompt carries function tools)' }),
    name: z.string(),
    description: z.string().nullable().optional(),
    parameters: z.record(z.string(), z.unknown()).nullable().optional(),
    strict: z.boolean().nullable().optional(),
  })
  .passthrough();

export const responsesRequestSchema = z
  .object({
    model: z.string().optional(),
    input: z.union([z.string(), z.array(responsesItemSchema)]),
    instructions: z.string().nullable().optional(),
    tools: z.array(responsesToolSchema).nullable().optional(),
    tool_choice: z
      .union([z.enum(["none", "auto", "required"]), z.object({ type: z.literal("function"), name: z.string() }).passthrough()], {
        error: 'expected "none", "auto", "required" or {"type": "function", "name": …}',
      })
      .nullable()
      .optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    max_output_tokens: z.number().int().positive().nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().gt(0).max(1).nullable().optional(),
    stream: z.boolean().nullable().optional(),
    store: z.boolean().nullable().optional(),
    previous_response_id: z.string().nullable().optional(),
    reasoning: z.object({}).passthrough().nullable().optional(),
    metadata: z.record(z.string(), z.string()).nullable().optional(),
  })
  .passthrough();
export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
