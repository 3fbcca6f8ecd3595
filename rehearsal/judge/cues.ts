// How the stand-in judge reads a next state: explicit cues of approval or rejection (thumbs, thanks, "no", "that
// sounds like an AI", tool errors) and the hint a rejection implies. Keyword rules only; no model.

export type Verdict = 1 | 0 | -1;

const NEGATIVE = [
  /👎/u,
  /sounds like an ai/i,
  /\bbe (more )?natural\b/i,
  /^\s*no\b/i,
  /\bwrong\b/i,
  /\bnot what i (asked|meant|wanted)\b/i,
  /\btry again\b/i,
  /\bredo\b/i,
  /\bthat('s| is) not\b/i,
];
const POSITIVE = [/👍/u, /\bthanks?\b/i, /\bthank you\b/i, /\bgreat\b/i, /\bperfect\b/i, /\bnice\b/i, /\bthat helps?\b/i, /\bworks\b/i, /\bexactly\b/i];
const TOOL_ERROR = [/\berror\b/i, /\bfailed\b/i, /\bno such file\b/i, /\bnot found\b/i, /\bexception\b/i, /\bdenied\b/i];

/**
 * `response`: the judged response as the judge prompt shows it, when known. A tool step that submits an answer it
 * says it took from memory, unchecked, is a guess: a process judge marks it down whatever the tool says.
 */
export function verdictOf(nextState: string, role: string, response = ""): { verdict: Verdict; reason: string } {
  if (role === "tool" && /\bfrom memory\b/i.test(response)) return { verdict: -1, reason: "the step guessed the answer instead of computing it" };
  if (role === "tool") {
    return TOOL_ERROR.some((pattern) => pattern.test(nextState))
      ? { verdict: -1, reason: "the tool call failed" }
      : { verdict: 1, reason: "the tool call ran without error" };
  }
  if (NEGATIVE.some((pattern) => pattern.test(nextState))) return { verdict: -1, reason: "the user rejects or corrects the response" };
  if (POSITIVE.some((pattern) => pattern.test(nextState))) return { verdict: 1, reason: "the user is satisfied and goes on" };
  return { verdict: 0, reason: "the next state says nothing either way" };
}

/** The hint a rejection implies, or null when the next state teaches nothing concrete. */
export function hintOf(nextState: string, role: string): string | null {
  if (/sounds like an ai|\bbe (more )?natural\b|\brobotic\b/i.test(nextState)) {
    return 'Answer in a natural, human voice. Never open with "As an AI language model".';
  }
  if (verdictOf(nextState, role).verdict !== -1) return null;
  const said = nextState.replace(/\s+/g, " ").trim().slice(0, 160);
  return said.length > 10 ? `The user said: "${said}". Do what they ask there.` : null;
}

/** The teacher's probability of the rejected (AI-flavoured) style after reading a hinted prompt: 0.02 under the
 * "natural, human voice" hint, 0.1 under its rewording (hint-votes.ts), a third (no opinion) otherwise. */
export function rejectedStyleShare(promptText: string): number {
  const hint = /\[user's hint \/ instruction\]([\s\S]*)/i.exec(promptText)?.[1] ?? "";
  if (/natural, human voice/i.test(hint)) return 0.02;
  if (/sound like a person talking/i.test(hint)) return 0.1;
  return 1 / 3;
}
