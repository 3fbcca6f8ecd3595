// What a chat request's tool_choice asks for: the function it names, whether it forces a call, and which tools the
// chat template is given for it. Ignores how a forced call is constrained (orchestrator/generation/) or read (parsers/).
import type { ChatRequest, Tool } from "../../contracts/chat.ts";

export type ToolChoice = ChatRequest["tool_choice"];

/** The function tool_choice names, or null for "none", "auto", "required" or none. */
export function namedFunction(choice: ToolChoice): string | null {
  return typeof choice === "object" && choice !== null ? choice.function.name : null;
}

/** tool_choice "required" or a named function: the answer must be tool calls. */
export function forcesToolCall(choice: ToolChoice): boolean {
  return choice === "required" || namedFunction(choice) !== null;
}

/** The tools the chat template is given: only the named one for a named tool_choice, as SGLang renders them. */
export function toolsToRender(tools: readonly Tool[] | null | undefined, choice: ToolChoice): readonly Tool[] | null {
  const named = namedFunction(choice);
  if (!tools || named === null) return tools ?? null;
  const kept = tools.filter((tool) => tool.function.name === named);
  return kept.length > 0 ? kept : null;
}
