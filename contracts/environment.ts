// The lease protocol of the reference's environment servers (terminal, GUI, SWE, tool-call tracks), as JSON
// answers: every answer carries `ok`; /allocate gives a lease, /reset the task's first user message and its tool
// schemas, /exec_tool an observation, /evaluate a score in [0, 1]. ../shared/reference/upstream-and-peers.md part (b).
import { z } from "zod";

const answer = z.object({ ok: z.boolean(), error: z.string().optional() }).passthrough();

export const allocateAnswerSchema = answer.extend({ lease_id: z.string().min(1) });
export const resetAnswerSchema = answer.extend({ user_msg: z.string(), tool_schemas: z.array(z.unknown()).default([]) });
/** An observation is text; a server that answers with JSON gets it as its JSON text. */
export const execToolAnswerSchema = answer.extend({ observation: z.unknown().transform((value) => (typeof value === "string" ? value : JSON.stringify(value ?? ""))) });
export const evaluateAnswerSchema = answer.extend({ score: z.number().min(0).max(1) });
export const plainAnswerSchema = answer;

export type EnvironmentAnswer = z.infer<typeof answer>;

/** A tool call as /exec_tool takes it. */
export interface EnvironmentToolCall {
  name: string;
  arguments: Record<string, unknown>;
}
