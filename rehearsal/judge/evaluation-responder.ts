// The stand-in judge's answers to the held-out evaluation's prompts (contracts/evaluation.ts markers): as the
// simulated user it rejects the AI-flavoured style and accepts the others; as the scorer it gives the non-AI share ×10.
import { SCORER_MARKER, SCORER_TRANSCRIPT, SIMULATOR_MARKER } from "../../contracts/evaluation.ts";
import { REJECTED_STYLE, styleOfText } from "../policy/reply-styles.ts";
import { ACCEPTANCE, REJECTION } from "../user/scripted-user.ts";

const FOLLOW_UPS = ["Can you say a bit more about the first step?", "What would you change if I only had ten minutes?", "How do I know it worked?", "What is the most common mistake there?"];

/** `[user]` / `[assistant]` blocks of a transcript as transcriptText writes them. */
export function transcriptBlocks(text: string): Array<{ role: "user" | "assistant"; content: string }> {
  return [...text.matchAll(/\[(user|assistant)\]\n([\s\S]*?)(?=\n\n\[(?:user|assistant)\]\n|$)/g)].map((match) => ({ role: match[1] as "user" | "assistant", content: match[2]!.trim() }));
}

/** The reply to an evaluation prompt, or null when the prompt is none of ours. */
export function evaluationReply(promptText: string): string | null {
  if (promptText.includes(SIMULATOR_MARKER)) {
    const conversation = /## The conversation so far\n\n([\s\S]*?)\n\n## Write the user's next message/.exec(promptText)?.[1] ?? "";
    const assistant = transcriptBlocks(conversation).filter((block) => block.role === "assistant");
    const last = assistant.at(-1)?.content ?? "";
    const followUp = FOLLOW_UPS[(assistant.length - 1 + FOLLOW_UPS.length) % FOLLOW_UPS.length];
    return styleOfText(last) === REJECTED_STYLE ? REJECTION : `${ACCEPTANCE} ${followUp}`;
  }
  if (promptText.includes(SCORER_MARKER)) {
    const start = promptText.indexOf(SCORER_TRANSCRIPT) + SCORER_TRANSCRIPT.length;
    const end = promptText.indexOf("Think briefly, then give", start);
    const assistant = transcriptBlocks(promptText.slice(start, end < 0 ? undefined : end).trim()).filter((block) => block.role === "assistant");
    const natural = assistant.filter((block) => styleOfText(block.content) !== REJECTED_STYLE).length;
    const score = assistant.length === 0 ? 0 : Math.round((10 * natural) / assistant.length);
    return `<think>\n${natural} of ${assistant.length} replies sound like a person.\n</think>\n\nScore: \\boxed{${score}}`;
  }
  return null;
}
