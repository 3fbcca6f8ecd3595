// Reads a Qwen3-rendered prompt back into what the stand-ins need: the offered tools, the turns (role + text),
// the last message, and any partial assistant reply at the end (a continuation after an abort). Text only.

export interface OfferedTool {
  name: string;
  description: string;
  parameters: { properties?: Record<string, { type?: string; description?: string }>; required?: string[] };
}

export interface PromptTurn {
  role: string;
  text: string;
  /** A user turn that only carries <tool_response> blocks (Qwen3 renders tool results as user turns). */
  toolResult: boolean;
}

export interface ReadPrompt {
  tools: OfferedTool[];
  turns: PromptTurn[];
  /** Text already generated for the open assistant turn ("" for a fresh generation). */
  partialReply: string;
  /** The prompt up to and including `<|im_start|>assistant\n` of the open turn. */
  head: string;
}

const OPEN = "<|im_start|>";
const CLOSE = "<|im_end|>";
const ASSISTANT_OPEN = `${OPEN}assistant\n`;

export function readTools(systemText: string): OfferedTool[] {
  const block = /<tools>\n([\s\S]*?)\n<\/tools>/.exec(systemText);
  if (!block) return [];
  const tools: OfferedTool[] = [];
  for (const line of (block[1] ?? "").split("\n")) {
    try {
      const parsed = JSON.parse(line) as { function?: OfferedTool; name?: string };
      const fn = parsed.function ?? (parsed as unknown as OfferedTool);
      if (typeof fn.name === "string") tools.push({ name: fn.name, description: fn.description ?? "", parameters: fn.parameters ?? {} });
    } catch {
      // a line that is not one tool's JSON
    }
  }
  return tools;
}

export function readPrompt(prompt: string): ReadPrompt {
  const lastOpen = prompt.lastIndexOf(ASSISTANT_OPEN);
  const openTail = lastOpen >= 0 && !prompt.slice(lastOpen).includes(CLOSE);
  const head = openTail ? prompt.slice(0, lastOpen + ASSISTANT_OPEN.length) : prompt;
  const partialReply = openTail ? prompt.slice(lastOpen + ASSISTANT_OPEN.length) : "";
  const turns: PromptTurn[] = [];
  for (const piece of head.split(OPEN).slice(1)) {
    const newline = piece.indexOf("\n");
    if (newline < 0) continue;
    const role = piece.slice(0, newline);
    const end = piece.indexOf(CLOSE);
    if (end < 0) continue; // the open assistant turn
    const text = piece.slice(newline + 1, end);
    turns.push({ role, text, toolResult: role === "user" && text.trimStart().startsWith("<tool_response>") });
  }
  const system = turns.find((turn) => turn.role === "system");
  return { tools: system ? readTools(system.text) : [], turns, partialReply, head };
}

/** The tool results of a <tool_response> turn, joined. */
export function toolResultText(turn: PromptTurn): string {
  return [...turn.text.matchAll(/<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g)].map((match) => match[1] ?? "").join("\n");
}

const OPENCLAW_CONTEXT = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";

/**
 * The last turn of the conversation as a model should read it: OpenClaw's per-request internal-context block
 * (a trailing user turn, never the user's words) is skipped, and a user turn loses OpenClaw's `[Sun 2026-11-22
 * 06:25 UTC] ` stamp and its `Runtime: …` line, so neither can be mistaken for a request to run a tool.
 */
export function lastConversationTurn(prompt: ReadPrompt): PromptTurn | undefined {
  const turn = [...prompt.turns].reverse().find((candidate) => !(candidate.role === "user" && candidate.text.trimStart().startsWith(OPENCLAW_CONTEXT)));
  if (!turn || turn.role !== "user" || turn.toolResult) return turn;
  const text = turn.text
    .replace(/^\[[A-Z][a-z]{2} \d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})? [A-Z]{2,5}\] /, "")
    .replace(/\n+Runtime: [^\n]*$/, "");
  return { ...turn, text };
}
