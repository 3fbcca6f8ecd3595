// An Anthropic Messages API request as the proxy's chat request: system → system message, text / tool_use /
// tool_result / thinking blocks → chat messages with tool calls and reasoning, tools with input_schema, sampling.
// Ignores how the answer is written back (messages-stream.ts).
import type { ChatMessage, ChatRequest, ToolCall } from "../../../contracts/chat.ts";
import type { AnthropicMessage, ContentBlock, MessagesRequest } from "../../../contracts/messages.ts";
import { openAiError, type OpenAiError } from "../openai-errors.ts";
import { isOpenAiError, parseChatRequest } from "../request-body.ts";

const TOOL_CHOICES = { auto: "auto", any: "required", none: "none" } as const;

export function messagesToChat(body: MessagesRequest): ChatRequest | OpenAiError {
  const messages: ChatMessage[] = [];
  if (body.system !== undefined) {
    const system = typeof body.system === "string" ? body.system : body.system.map((block) => block.text).join("\n\n");
    if (system !== "") messages.push({ role: "system", content: system });
  }
  for (const [index, message] of body.messages.entries()) {
    const converted = message.role === "user" ? userMessages(message, index) : message.role === "system" ? systemMessage(message, index) : assistantMessage(message, index);
    if (isOpenAiError(converted)) return converted;
    messages.push(...converted);
  }
  const choice = body.tool_choice;
  const chat = parseChatRequest({
    model: body.model,
    messages,
    stream: body.stream ?? false,
    tools: body.tools?.map((tool) => ({ type: "function", function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.input_schema } })),
    tool_choice: choice === undefined ? undefined : choice.type === "tool" ? { type: "function", function: { name: choice.name ?? "" } } : TOOL_CHOICES[choice.type],
    max_completion_tokens: body.max_tokens,
    temperature: body.temperature,
    top_p: body.top_p,
    top_k: body.top_k,
    stop: body.stop_sequences,
  });
  if (isOpenAiError(chat)) return openAiError(400, `the request could not be read as a conversation: ${chat.message}`, { code: "invalid_request" });
  return chat;
}

/** A user turn: each tool_result block becomes a tool message (in order), the text blocks one user message after them. */
function userMessages(message: AnthropicMessage, index: number): ChatMessage[] | OpenAiError {
  if (typeof message.content === "string") return [{ role: "user", content: message.content }];
  const out: ChatMessage[] = [];
  const texts: string[] = [];
  for (const [position, block] of message.content.entries()) {
    const param = `messages.${index}.content.${position}`;
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "tool_result") {
      const text = toolResultText(block, param);
      if (isOpenAiError(text)) return text;
      out.push({ role: "tool", tool_call_id: block.tool_use_id, content: block.is_error === true ? `Error: ${text}` : text });
    } else return unsupported(block, param, "a user message");
  }
  if (texts.length > 0) out.push({ role: "user", content: texts.length === 1 ? texts[0]! : texts.map((text) => ({ type: "text", text })) });
  return out;
}

/** A system message among the turns (Claude Code's environment block): its text blocks, joined as `system` is. */
function systemMessage(message: AnthropicMessage, index: number): ChatMessage[] | OpenAiError {
  if (typeof message.content === "string") return [{ role: "system", content: message.content }];
  const texts: string[] = [];
  for (const [position, block] of message.content.entries()) {
    if (block.type !== "text") return unsupported(block, `messages.${index}.content.${position}`, "a system message");
    texts.push(block.text);
  }
  return [{ role: "system", content: texts.join("\n\n") }];
}

function assistantMessage(message: AnthropicMessage, index: number): ChatMessage[] | OpenAiError {
  if (typeof message.content === "string") return [{ role: "assistant", content: message.content }];
  const texts: string[] = [];
  const thinking: string[] = [];
  const calls: ToolCall[] = [];
  for (const [position, block] of message.content.entries()) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "thinking") thinking.push(block.thinking);
    else if (block.type === "redacted_thinking") continue; // (another model's encrypted reasoning: nothing to render)
    else if (block.type === "tool_use") calls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    else return unsupported(block, `messages.${index}.content.${position}`, "an assistant message");
  }
  return [
    {
      role: "assistant",
      content: texts.length > 0 ? texts.join("") : null,
      ...(thinking.length > 0 ? { reasoning_content: thinking.join("\n") } : {}),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    },
  ];
}

function toolResultText(block: Extract<ContentBlock, { type: "tool_result" }>, param: string): string | OpenAiError {
  if (block.content === undefined) return "";
  if (typeof block.content === "string") return block.content;
  const texts: string[] = [];
  for (const [position, part] of block.content.entries()) {
    if (part.type !== "text" || typeof part.text !== "string") return unsupported(part, `${param}.content.${position}`, "a tool result");
    texts.push(part.text);
  }
  return texts.join("\n");
}

function unsupported(block: { type: string }, param: string, where: string): OpenAiError {
  return openAiError(400, `${param}: ${JSON.stringify(block.type)} blocks are not supported in ${where}: the prompt is rendered as text`, { param, code: "unsupported_content" });
}
