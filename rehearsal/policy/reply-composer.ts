// What the stand-in policy says, as text: a short `<think>` block, then a qwen25 tool call when the user asks to
// read / list / run / search something and a fitting tool is offered, else an answer in a given style. Pure text.
import type { OfferedTool, PromptTurn, ReadPrompt } from "../model/prompt-reader.ts";
import { lastConversationTurn, toolResultText } from "../model/prompt-reader.ts";
import { REPLY_STYLES, THINK_END, THINK_GAP } from "./reply-styles.ts";

const TOOL_INTENTS: Array<{ verb: string; pattern: RegExp; names: RegExp }> = [
  { verb: "read", pattern: /\b(read|open|show|cat|look at|view)\b/i, names: /read|open|view|cat|file/i },
  { verb: "list", pattern: /\b(list|ls)\b|what files|which files/i, names: /list|ls|dir|glob|find/i },
  { verb: "run", pattern: /\b(run|execute|exec)\b/i, names: /exec|run|bash|shell|command|terminal/i },
  { verb: "search", pattern: /\b(search|grep|look up|find)\b/i, names: /search|grep|find|web/i },
];

const DETAILS = [
  "the simplest approach is to take it one step at a time.",
  "start with the part you can check quickly, then build on it.",
  "keep it small first, and change one thing at a time.",
  "write down what you expect before you try it, then compare.",
];

export type Plan = { kind: "tool"; text: string } | { kind: "answer"; text: (style: number) => string };

function pythonJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  return `{${Object.entries(value as Record<string, unknown>).map(([key, entry]) => `${JSON.stringify(key)}: ${pythonJson(entry)}`).join(", ")}}`;
}

function clip(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= limit ? flat : `${flat.slice(0, limit - 1)}…`;
}

function topicOf(text: string): string {
  const topic = clip(text, 60).replace(/[?.!]+$/, "");
  return topic.length > 0 ? `"${topic}"` : "your question";
}

function pickTool(text: string, tools: readonly OfferedTool[]): { verb: string; tool: OfferedTool } | null {
  for (const intent of TOOL_INTENTS) {
    if (!intent.pattern.test(text)) continue;
    // a name may contain the word ("list_directory"); a description must say it as a word ("goals" is no "ls")
    const asWord = new RegExp(`\\b(?:${intent.names.source})\\b`, "i");
    const tool = tools.find((candidate) => intent.names.test(candidate.name)) ?? tools.find((candidate) => asWord.test(candidate.description));
    if (tool) return { verb: intent.verb, tool };
  }
  return null;
}

function guessArguments(text: string, verb: string, tool: OfferedTool): Record<string, unknown> {
  const quoted = /`([^`]+)`|"([^"]+)"/.exec(text);
  const pathLike = /([\w./~-]+\.[A-Za-z0-9]+|[\w.~-]*\/[\w./~-]*)/.exec(text);
  const afterVerb = new RegExp(`\\b${verb}\\b\\s+(.+)$`, "i").exec(text.trim());
  const target = (quoted?.[1] ?? quoted?.[2] ?? pathLike?.[1] ?? afterVerb?.[1] ?? ".").replace(/[?.!]+$/, "") || ".";
  const properties = tool.parameters.properties ?? {};
  const names = tool.parameters.required && tool.parameters.required.length > 0 ? tool.parameters.required : Object.keys(properties).slice(0, 1);
  const args: Record<string, unknown> = {};
  for (const name of names) {
    const type = properties[name]?.type ?? "string";
    if (type === "number" || type === "integer") args[name] = 1;
    else if (type === "boolean") args[name] = false;
    else if (type === "array") args[name] = [target];
    else args[name] = target;
  }
  return args;
}

function think(text: string): string {
  return `<think>\n${text}\n${THINK_END}${THINK_GAP}`;
}

/** The reply plan for a prompt: a fixed tool call, or an answer whose text depends on the chosen style. */
export function planReply(prompt: ReadPrompt): Plan {
  const last: PromptTurn | undefined = lastConversationTurn(prompt);
  if (last && last.role === "user" && !last.toolResult && prompt.tools.length > 0) {
    const picked = pickTool(last.text, prompt.tools);
    if (picked) {
      const args = guessArguments(last.text, picked.verb, picked.tool);
      const call = pythonJson({ name: picked.tool.name, arguments: args });
      return { kind: "tool", text: `${think(`The user wants me to ${picked.verb} something. I will call ${picked.tool.name}.`)}<tool_call>\n${call}\n</tool_call>` };
    }
  }
  let topic = "your question";
  let detail = DETAILS[0] as string;
  if (last?.toolResult) {
    const output = toolResultText(last);
    topic = "what the tool returned";
    detail = `the output starts with "${clip(output.split("\n")[0] ?? "", 60)}".`;
  } else if (last) {
    topic = topicOf(last.text);
    detail = DETAILS[[...last.text].reduce((sum, character) => sum + (character.codePointAt(0) ?? 0), 0) % DETAILS.length] as string;
  }
  const reasoning = think(`The user asks about ${topic}. I will answer briefly.`);
  return { kind: "answer", text: (style) => `${reasoning}${(REPLY_STYLES[style] ?? REPLY_STYLES[0]!).render(topic, detail)}` };
}
