// A scripted user for rehearsals: holds conversations with the agent through the proxy (OpenAI chat completions,
// streamed like OpenClaw), rejects the AI-flavoured reply style ("that sounds like an AI, be natural") and accepts
// the others, runs the tools the agent calls, and records every judged turn with the policy's weight version.
import { randomBytes } from "node:crypto";
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import { askProxy, policyWeightVersion, type ProxyChatOptions, type Reply } from "./proxy-chat.ts";
import { REJECTED_STYLE, styleOfText } from "../policy/reply-styles.ts";

export const REJECTION = "That sounds like an AI. Be natural, please.";
export const ACCEPTANCE = "Thanks, that helps!";

const QUESTIONS = [
  "How do I keep my basil alive on a windowsill?",
  "What is a good way to start running again?",
  "How should I plan a week of cheap dinners?",
  "Any tips for falling asleep faster?",
  "How do I remember people's names better?",
  "What should I pack for a two-day hike?",
  "How can I keep my inbox under control?",
  "How do I make my bike chain stop squeaking?",
  "What is a simple way to learn touch typing?",
  "How do I get started with sourdough bread?",
];

const TOOLS: Tool[] = [
  { type: "function", function: { name: "read", description: "Read a text file from the workspace", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } },
];

export interface TurnRecord {
  session: string;
  turn: number;
  kind: "answer" | "tool";
  style: string | null;
  /** What the user's next message says about the turn: +1 accepted (or tool ran), -1 rejected. */
  verdict: 1 | -1;
  /** The policy's weight version right after the reply (null when no policy URL was given). */
  weightVersion: string | null;
}

export interface ScriptedUserOptions extends ProxyChatOptions {
  /** Stand-in policy base URL, read for the weight version of each turn. */
  policyUrl?: string;
  turnsPerSession?: number;
  /** Every n-th session opens with a request that makes the agent call a tool (0 = never). */
  toolSessionEvery?: number;
  /** How long the user takes before each message they type (tool results go back at once); none by default. */
  thinkMs?: () => number;
}

export class ScriptedUser {
  private sessions = 0;
  constructor(private readonly options: ScriptedUserOptions) {}

  /** Runs sessions until `turns` judged turns are recorded; onTurn sees each as it happens. */
  async run(turns: number, onTurn?: (record: TurnRecord) => void): Promise<TurnRecord[]> {
    const records: TurnRecord[] = [];
    while (records.length < turns) {
      for (const record of await this.session(Math.min(this.options.turnsPerSession ?? 3, turns - records.length))) {
        records.push(record);
        onTurn?.(record);
      }
    }
    return records;
  }

  private async session(judgedTurns: number): Promise<TurnRecord[]> {
    const index = this.sessions++;
    const session = `rehearsal-${randomBytes(6).toString("hex")}`;
    const every = this.options.toolSessionEvery ?? 4;
    const withTools = every > 0 && index % every === every - 1;
    const messages: ChatMessage[] = [
      { role: "system", content: "You are a helpful personal assistant. Answer briefly." },
      { role: "user", content: withTools ? "Please read notes.txt and tell me what is on my list." : (QUESTIONS[index % QUESTIONS.length] as string) },
    ];
    const records: TurnRecord[] = [];
    for (let turn = 0; turn < judgedTurns; turn += 1) {
      const reply = await this.ask(session, messages, withTools);
      const weightVersion = await this.weightVersion();
      if (reply.toolCalls.length > 0) {
        messages.push({ role: "assistant", content: reply.content, tool_calls: reply.toolCalls.map((call) => ({ id: call.id, type: "function" as const, function: { name: call.name, arguments: call.arguments } })) });
        for (const call of reply.toolCalls) messages.push({ role: "tool", tool_call_id: call.id, content: "notes.txt:\n- buy basil\n- water the plants\n- call grandma" });
        records.push({ session, turn, kind: "tool", style: null, verdict: 1, weightVersion });
        continue;
      }
      const style = styleOfText(reply.content);
      const rejected = style === REJECTED_STYLE;
      messages.push({ role: "assistant", content: reply.content });
      messages.push({ role: "user", content: rejected ? REJECTION : `${ACCEPTANCE} ${QUESTIONS[(index + turn + 1) % QUESTIONS.length]}` });
      records.push({ session, turn, kind: "answer", style, verdict: rejected ? -1 : 1, weightVersion });
      const think = this.options.thinkMs?.() ?? 0;
      if (think > 0) await new Promise((resolve) => setTimeout(resolve, think));
    }
    await this.ask(session, messages, withTools); // the last next state reaches the proxy, so the last turn is judged too
    return records;
  }

  private ask(session: string, messages: ChatMessage[], withTools: boolean): Promise<Reply> {
    return askProxy(this.options, session, messages, withTools ? TOOLS : undefined);
  }

  private async weightVersion(): Promise<string | null> {
    return this.options.policyUrl ? policyWeightVersion(this.options.policyUrl) : null;
  }
}
