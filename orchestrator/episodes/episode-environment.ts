// What the episode driver needs of an environment, whatever protocol its server speaks: a lease, a reset giving the
// first user message and the tools, tool calls giving observations, a score, a close. The reference's terminal lease
// protocol (environment-client.ts), its GUI pool's (gui-environment-client.ts) and its SWE pool's (swe-environment-client.ts).
import type { EnvironmentToolCall } from "../../contracts/environment.ts";

export interface EpisodeEnvironment {
  healthy(): Promise<boolean>;
  /** A lease for one episode of `taskKey`; `requestId` (the episode id) makes a retried call get the same lease where the protocol can. */
  allocate(taskKey: string, requestId: string): Promise<string>;
  reset(leaseId: string, taskMeta: Record<string, unknown>, runCtx?: Record<string, unknown>, taskTimeouts?: Record<string, number>): Promise<{ userMessage: string; toolSchemas: unknown[] }>;
  /** The observation of one tool call: text, errors of the tool included. */
  execTool(leaseId: string, toolCall: EnvironmentToolCall): Promise<string>;
  /** Whether the environment said the episode is over (the GUI pool's `done`); the lease protocol never does. */
  finished?(leaseId: string): boolean;
  evaluate(leaseId: string): Promise<number>;
  heartbeat(leaseId: string): Promise<void>;
  close(leaseId: string): Promise<void>;
}

/** An OpenAI function tool of one required text argument: the one tool a GUI or SWE episode gets. */
export function oneTextArgumentTool(name: string, description: string, argument: string, argumentDescription: string) {
  return { type: "function", function: { name, description, parameters: { type: "object", properties: { [argument]: { type: "string", description: argumentDescription } }, required: [argument] } } } as const;
}
