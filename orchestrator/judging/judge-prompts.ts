// The judge's two prompts (turn evaluation and hindsight hint) as chat messages, in our own words, with the
// reference's answer formats. Rendering them with the judge's chat template is the judge client's job.
import type { AssistantMessage, ChatMessage } from "../../contracts/chat.ts";
import type { NextStateRole } from "../../contracts/turn.ts";

/** Longest response / next-state text shown to the judge; the middle of longer texts is elided (and said so). */
export const JUDGE_TEXT_LIMIT = 16_000;

const ROLE_GUIDE = [
  "How to read the next state:",
  "- [role: user] is the person's next message to the assistant.",
  "- [role: tool] is the output of a tool the assistant itself called in the response. It did not exist before",
  "  the response; it exists because of it. A normal, error-free tool output is evidence that the call was right;",
  "  it is not information the assistant should already have had.",
].join("\n");

const EVAL_SYSTEM = [
  "You grade one step of an AI assistant's work. You see the assistant's response and the next state that followed",
  "it, and you decide whether the response did what the user wanted at that step, using the next state as evidence.",
  "",
  ROLE_GUIDE,
  "",
  "Scores:",
  "- \\boxed{1}: the next state shows things went as intended: the user continues, thanks the assistant or builds on",
  "  the result, or a tool call ran without error and returned what was asked for.",
  "- \\boxed{-1}: the next state shows the response was wrong, incomplete or unwanted: the user asks for it again, asks",
  "  to fix or change what was just done (\"no, I meant…\", \"change X to Y\"), restates the same request, complains, or",
  "  a tool call failed or returned an error because of how the assistant made it. A correction is negative feedback,",
  "  not a neutral new instruction.",
  "- \\boxed{0}: the next state says nothing either way (an unrelated new topic, too little information).",
  "",
  "Reason briefly, then end your answer with exactly one final score: \\boxed{1}, \\boxed{0} or \\boxed{-1}.",
].join("\n");

const HINT_SYSTEM = [
  "You extract hindsight hints for an AI assistant. You see the assistant's response at one step and the next state",
  "that followed it. Decide whether the next state reveals something that, had the assistant known it, would have",
  "made the response better.",
  "",
  ROLE_GUIDE,
  "",
  "Answer format (strict):",
  "- End with exactly one decision: \\boxed{1} (the next state reveals a useful improvement) or \\boxed{-1} (it does not).",
  "- With \\boxed{1}, also give the hint: one to three concrete, actionable sentences addressed to the assistant,",
  "  between [HINT_START] and [HINT_END], e.g. [HINT_START]The user wants the answer in metric units.[HINT_END]",
  "- With \\boxed{-1}, give no hint block.",
].join("\n");

export function evaluationPrompt(responseText: string, nextStateText: string, role: NextStateRole): ChatMessage[] {
  const user = [
    "## The assistant's response",
    clipForJudge(responseText),
    "",
    `## The next state [role: ${role}]`,
    clipForJudge(nextStateText),
    "",
    "Does the next state show progress, a correction / redo / change request, or neither? Give your final score as \\boxed{1}, \\boxed{0} or \\boxed{-1}.",
  ].join("\n");
  return [
    { role: "system", content: EVAL_SYSTEM },
    { role: "user", content: user },
  ];
}

export function hintPrompt(responseText: string, nextStateText: string, role: NextStateRole): ChatMessage[] {
  const user = [
    "## The assistant's response (step t)",
    clipForJudge(responseText),
    "",
    `## The next state (step t+1) [role: ${role}]`,
    clipForJudge(nextStateText),
    "",
    "Give your decision, and with \\boxed{1} the hint between [HINT_START] and [HINT_END].",
  ].join("\n");
  return [
    { role: "system", content: HINT_SYSTEM },
    { role: "user", content: user },
  ];
}

/** What the judge sees of a response: its visible content and its tool calls (the reasoning is left out). */
export function responseTextForJudge(response: AssistantMessage): string {
  const parts: string[] = [];
  if (response.content && response.content.trim().length > 0) parts.push(response.content.trim());
  for (const call of response.tool_calls ?? []) parts.push(`[tool call] ${call.function.name}(${call.function.arguments})`);
  return parts.length > 0 ? parts.join("\n") : "(empty response)";
}

export function clipForJudge(text: string, limit = JUDGE_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  const keep = Math.floor(limit / 2);
  return `${text.slice(0, keep)}\n[… ${text.length - 2 * keep} characters left out …]\n${text.slice(text.length - keep)}`;
}
