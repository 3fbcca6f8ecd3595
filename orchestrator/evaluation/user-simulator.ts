// The simulated user: an OpenAI-compatible model (by default the judge engine) plays a persona and writes the user's
// next message from the conversation so far. Its prompt is ours (SIMULATOR_MARKER); its seed is fixed per turn.
import { SIMULATOR_MARKER, type PersonaOpener } from "../../contracts/evaluation.ts";
import { chatOnce, type ChatEndpoint } from "./chat-endpoint.ts";

export type TranscriptTurn = { role: "user" | "assistant"; content: string };

export interface SimulatorSettings {
  endpoint: ChatEndpoint;
  temperature: number;
  maxTokens: number;
}

/** The conversation as text blocks, `[user]` / `[assistant]` each on its own line before the message. */
export function transcriptText(transcript: readonly TranscriptTurn[]): string {
  return transcript.map((turn) => `[${turn.role}]\n${turn.content.trim()}`).join("\n\n");
}

export function simulatorMessages(opener: PersonaOpener, transcript: readonly TranscriptTurn[]): Array<{ role: "system" | "user"; content: string }> {
  const system = [
    SIMULATOR_MARKER,
    opener.persona,
    "Stay in this role. Write only the user's next message: no quotes, no labels, no commentary, one to three sentences.",
  ].join("\n\n");
  const user = `## The conversation so far\n\n${transcriptText(transcript)}\n\n## Write the user's next message`;
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

/** The user's next message; `seed` is the same for the same (opener, sample, turn) in every version evaluated. */
export async function simulateUserTurn(settings: SimulatorSettings, opener: PersonaOpener, transcript: readonly TranscriptTurn[], seed: number, signal?: AbortSignal): Promise<string> {
  const text = await chatOnce(settings.endpoint, simulatorMessages(opener, transcript), { temperature: settings.temperature, max_tokens: settings.maxTokens, seed }, signal);
  return stripReasoning(text);
}

/** A reasoning model's `<think>…</think>` before the message, when the server did not split it off. */
export function stripReasoning(text: string): string {
  const end = text.lastIndexOf("</think>");
  return (end >= 0 ? text.slice(end + "</think>".length) : text).trim();
}
