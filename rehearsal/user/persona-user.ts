// A rehearsal user that plays one homework persona (homework-personas.ts) session after session through the proxy:
// each session opens with a new problem, asks for rewrites until a reply satisfies the persona (up to a bound), and
// reports whether the session's first reply did. Counting sessions over those verdicts is the caller's.
import { randomBytes } from "node:crypto";
import type { ChatMessage } from "../../contracts/chat.ts";
import { HOMEWORK_PROBLEMS, satisfiesPersona, type HomeworkPersona } from "./homework-personas.ts";
import { askProxy, policyWeightVersion, type ProxyChatOptions } from "./proxy-chat.ts";
import { styleOfText } from "../policy/reply-styles.ts";

export interface PersonaSession {
  /** 1-based, in the order played. */
  index: number;
  session: string;
  /** Whether the session's first reply satisfied the persona: the paper's per-session verdict. */
  firstReplySatisfied: boolean;
  firstReplyStyle: string | null;
  /** Replies the persona judged in this session (rewrites included). */
  judgedReplies: number;
  /** The policy's weight version right after the first reply (null without a policy URL). */
  weightVersion: string | null;
}

export interface PersonaUserOptions extends ProxyChatOptions {
  persona: HomeworkPersona;
  /** Stand-in policy base URL, read for the weight version of each session's first reply. */
  policyUrl?: string;
  /** Replies judged per session at most: the first, then rewrites while unsatisfied (default 2). */
  repliesPerSession?: number;
}

export class PersonaUser {
  private played = 0;
  constructor(private readonly options: PersonaUserOptions) {}

  /** Plays one session; its last judged reply's next state is sent too, so that every judged reply is judged by the run. */
  async session(): Promise<PersonaSession> {
    const index = ++this.played;
    const { persona } = this.options;
    const session = `persona-${persona.id}-${randomBytes(6).toString("hex")}`;
    const problem = HOMEWORK_PROBLEMS[(index - 1) % HOMEWORK_PROBLEMS.length]!;
    const messages: ChatMessage[] = [
      { role: "system", content: "You are a helpful personal assistant. Answer briefly." },
      { role: "user", content: persona.opener(problem) },
    ];
    let first: { satisfied: boolean; style: string | null; weightVersion: string | null } | null = null;
    let judgedReplies = 0;
    while (judgedReplies < Math.max(1, this.options.repliesPerSession ?? 2)) {
      const reply = await askProxy(this.options, session, messages);
      const satisfied = satisfiesPersona(persona, reply.content);
      judgedReplies += 1;
      first ??= { satisfied, style: styleOfText(reply.content), weightVersion: this.options.policyUrl ? await policyWeightVersion(this.options.policyUrl) : null };
      messages.push({ role: "assistant", content: reply.content }, { role: "user", content: satisfied ? persona.acceptance : persona.rejection });
      if (satisfied) break;
    }
    await askProxy(this.options, session, messages);
    return { index, session, firstReplySatisfied: first!.satisfied, firstReplyStyle: first!.style, judgedReplies, weightVersion: first!.weightVersion };
  }
}
