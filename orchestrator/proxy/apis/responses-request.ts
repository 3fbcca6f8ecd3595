// A Responses API request as the proxy's chat request: instructions → system message, input items → chat messages
// (a run of reasoning / assistant message / function_call items → one assistant message), function tools, sampling.
// Ignores how the answer is written back (responses-stream.ts) and where earlier responses are kept (response-store.ts).
import type { ChatMessage, ChatRequest, ToolCall } from "../../../contracts/chat.ts";
import type { ResponsesContentPart, ResponsesItem, ResponsesRequest } from "../../../contracts/responses.ts";
import { openAiError, type OpenAiError } from "../openai-errors.ts";
import { isOpenAiError, parseChatRequest } from "../request-body.ts";

export interface ConvertedResponsesRequest {
  chat: ChatRequest;
  /** The conversation without the instructions (a later request's previous_response_id goes on from it). */
  conversation: ChatMessage[];
}

type AssistantMessage = Extract<ChatMessage, { role: "assistant" }>;

/** `previous` is the conversation of the response named by previous_response_id (its instructions are not carried over). */
export function responsesToChat(body: ResponsesRequest, previous: readonly ChatMessage[]): ConvertedResponsesRequest | OpenAiError {
  const items = typeof body.input === "string" ? [{ type: "message" as const, role: "user" as const, content: body.input }] : body.input;
  const converted = inputMessages(items);
  if (isOpenAiError(converted)) return converted;
  const conversation = [...previous, ...converted];
  const system: ChatMessage[] = body.instructions ? [{ role: "system", content: body.instructions }] : [];
  const choice = body.tool_choice;
  const chat = parseChatRequest({
    model: body.model,
    messages: [...system, ...conversation],
    stream: body.stream ?? false,
    tools: body.tools?.map(({ name, description, parameters }) => ({ type: "function", function: { name, ...(description ? { description } : {}), parameters: parameters ?? { type: "object", properties: {} } } })),
    tool_choice: typeof choice === "object" && choice !== null ? { type: "function", function: { name: choice.name } } : choice,
    max_completion_tokens: body.max_output_tokens,
    temperature: body.temperature,
    top_p: body.top_p,
  });
  if (isOpenAiError(chat)) return openAiError(400, `the request could not be read as a conversation: ${chat.message}`, { param: null, code: "invalid_request" });
  return { chat, conversation };
}

function inputMessages(items: readonly ResponsesItem[]): ChatMessage[] | OpenAiError {
  const messages: ChatMessage[] = [];
  let assistant: AssistantMessage | null = null; // the assistant message the current run of output items builds
  const flush = (): void => {
    if (assistant) messages.push(assistant);
    assistant = null;
  };
  for (const [index, item] of items.entries()) {
    if (item.type === "message" && item.role !== "assistant") {
      flush();
      const parts = textParts(item.content, `input.${index}.content`);
      if (isOpenAiError(parts)) return parts;
      messages.push({ role: item.role, content: typeof parts === "string" ? parts : parts.map((text) => ({ type: "text", text })) });
      continue;
    }
    if (item.type === "function_call_output") {
      flush();
      const parts = textParts(item.output, `input.${index}.output`);
      if (isOpenAiError(parts)) return parts;
      const id = item.call_id ?? [item.namespace, item.name].filter((part) => part !== undefined).join(".");
      messages.push({ role: "tool", tool_call_id: id, content: typeof parts === "string" ? parts : parts.join("") });
      continue;
    }
    // an output item: it joins the assistant message being built, or starts the next one
    const current: AssistantMessage = assistant ?? { role: "assistant", content: null };
    const hasAnswer = typeof current.content === "string" || (current.tool_calls?.length ?? 0) > 0;
    if (item.type === "reasoning") {
      const text = [...(item.content ?? []), ...(item.content?.length ? [] : item.summary)].map((part) => part.text).join("\n");
      if (hasAnswer) {
        flush();
        assistant = { role: "assistant", content: null, reasoning_content: text };
      } else assistant = { ...current, reasoning_content: (current.reasoning_content ? `${current.reasoning_content}\n` : "") + text };
    } else if (item.type === "message") {
      const parts = textParts(item.content, `input.${index}.content`);
      if (isOpenAiError(parts)) return parts;
      const text = typeof parts === "string" ? parts : parts.join("");
      if ((current.tool_calls?.length ?? 0) > 0) {
        flush();
        assistant = { role: "assistant", content: text };
      } else assistant = { ...current, content: (typeof current.content === "string" ? current.content : "") + text };
    } else {
      const call: ToolCall = { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } };
      assistant = { ...current, tool_calls: [...(current.tool_calls ?? []), call] };
    }
  }
  flush();
  if (messages.length === 0) return openAiError(400, "input: expected at least one input item", { param: "input", code: "invalid_request" });
  return messages;
}

/** The texts of a content list (a string stays one); a part of any other type than text is refused by its path. */
function textParts(content: string | readonly ResponsesContentPart[], param: string): string | string[] | OpenAiError {
  if (typeof content === "string") return content;
  const texts: string[] = [];
  for (const [position, part] of content.entries()) {
    if (part.type !== "input_text" && part.type !== "output_text") {
      return openAiError(400, `${param}.${position}: ${JSON.stringify(part.type)} parts are not supported: the prompt is rendered as text`, { param: `${param}.${position}`, code: "unsupported_content" });
    }
    texts.push(String(part.text));
  }
  return texts;
}
