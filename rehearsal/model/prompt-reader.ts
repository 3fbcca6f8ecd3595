// Reads a rendered prompt back into what the stand-ins need: the offered tools, the turns (role + text), the last
// message, and any partial assistant reply at the end (a continuation after an abort). Qwen3's markup, and
// DeepSeek-V3's (the rehearsal's second family). Text only.

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
  return prompt.includes(DEEPSEEK_USER) || prompt.includes(DEEPSEEK_ASSISTANT) ? readDeepseekPrompt(prompt) : readQwenPrompt(prompt);
}

const DEEPSEEK_BOS = "<｜begin▁of▁sentence｜>";
const DEEPSEEK_USER = "<｜User｜>";
const DEEPSEEK_ASSISTANT = "<｜Assistant｜>";
const DEEPSEEK_EOS = "<｜end▁of▁sentence｜>";
const DEEPSEEK_MARKS = /(<｜User｜>|<｜Assistant｜>|<｜tool▁outputs▁begin｜>|<｜tool▁output▁begin｜>|<｜tool▁output▁end｜>|<｜tool▁outputs▁end｜>|<｜end▁of▁sentence｜>)/;

/**
 * DeepSeek-V3's markup: the system prompt after BOS, `<｜User｜>` and `<｜Assistant｜>` turns (an assistant turn ends
 * with end of sentence), tool results between `<｜tool▁output▁begin｜>` and `<｜tool▁output▁end｜>` (read as a user turn
 * of <tool_response> blocks, as Qwen3 renders them). Its template lists no tools.
 */
function readDeepseekPrompt(prompt: string): ReadPrompt {
  const lastOpen = prompt.lastIndexOf(DEEPSEEK_ASSISTANT);
  const openTail = lastOpen >= 0 && !prompt.slice(lastOpen).includes(DEEPSEEK_EOS) && !prompt.slice(lastOpen).includes("<｜tool▁outputs▁end｜>");
  const head = openTail ? prompt.slice(0, lastOpen + DEEPSEEK_ASSISTANT.length) : prompt;
  const partialReply = openTail ? prompt.slice(lastOpen + DEEPSEEK_ASSISTANT.length) : "";
  const body = head.startsWith(DEEPSEEK_BOS) ? head.slice(DEEPSEEK_BOS.length) : head;
  const pieces = body.split(DEEPSEEK_MARKS);
  const turns: PromptTurn[] = [];
  if (pieces[0]) turns.push({ role: "system", text: pieces[0], toolResult: false });
  let role: string | null = null;
  let outputs: string[] = [];
  for (const piece of pieces.slice(1)) {
    if (piece === DEEPSEEK_USER) role = "user";
    else if (piece === DEEPSEEK_ASSISTANT) role = "assistant";
    else if (piece === "<｜tool▁output▁begin｜>") role = "tool";
    else if (piece === "<｜tool▁output▁end｜>") role = null;
    else if (piece === "<｜tool▁outputs▁end｜>") {
      turns.push({ role: "user", text: outputs.map((output) => `<tool_response>\n${output}\n</tool_response>`).join("\n"), toolResult: true });
      outputs = [];
      role = "assistant"; // (the template writes the next assistant text right after the outputs)
    } else if (piece.startsWith("<｜")) continue;
    else if (role === "tool") outputs.push(piece);
    else if (role !== null && piece.length > 0) turns.push({ role, text: piece, toolResult: false });
  }
  return { tools: [], turns, partialReply, head };
}

function readQwenPrompt(prompt: string): ReadPrompt {
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
 * 06:25 UTC] ` stamp and its `Runtime: …` line, so neither can be mistaken for a request to run a tool. Coding
 * agents' context is skipped the same way: a system turn after the first (Claude Code's environment block) and
 * `<system-reminder>` blocks in a user turn.
 */
export function lastConversationTurn(prompt: ReadPrompt): PromptTurn | undefined {
  const turn = [...prompt.turns]
    .reverse()
    .find((candidate, index, reversed) => !(candidate.role === "user" && candidate.text.trimStart().startsWith(OPENCLAW_CONTEXT)) && !(candidate.role === "system" && index < reversed.length - 1));
  if (!turn || turn.role !== "user" || turn.toolResult) return turn;
  const text = turn.text
    .replace(/<system-reminder>[\s\S]*?<\/system-reminder>\s*/g, "")
    .replace(/^\[[A-Z][a-z]{2} \d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})? [A-Z]{2,5}\] /, "")
    .replace(/\n+Runtime: [^\n]*$/, "");
  return { ...turn, text };
}
