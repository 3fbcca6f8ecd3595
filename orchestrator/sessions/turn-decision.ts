// Decides a request's session and turn type (main | side): explicit headers and body fields first, then
// OpenClaw's own markers, then inference from history and request shape. Pure: reads, never mutates.
import type { ChatMessage, ChatRequest } from "../../contracts/chat.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import type { EpisodeRef, TurnDecision } from "../../contracts/turn.ts";
import { flattenContent } from "../../lib/model/chat-template.ts";
import { runtimeSessionId } from "./message-digest.ts";

export type Headers = Record<string, string | string[] | undefined>;

export interface SessionView {
  /** The session whose known history this request extends the furthest, and how many messages match. */
  longestHistory(prefixDigests: readonly string[]): { sessionId: string; matched: number } | null;
  /** Whether the session's main turns so far were sent with tools (an agent conversation). */
  usesTools(sessionId: string): boolean;
  exists(sessionId: string): boolean;
}

/** What a client of another API (Responses, Messages) says about a request, read by its adapter. */
export interface ClientSignals {
  /** The client's own conversation id (Codex's session_id header, Claude Code's metadata.user_id), with where it was read. */
  conversation?: { id: string; from: string };
  /** Why the request is one of the client's own side requests (a title, a summary, a compaction), if it is one. */
  sideRequest?: string;
}

export interface Decision {
  sessionId: string;
  turnType: "main" | "side";
  sessionDone: boolean;
  decidedBy: TurnDecision;
  /** A step of a general-agent episode (X-Episode-Id), else null. */
  episode: EpisodeRef | null;
}

const TRUE_WORDS = new Set(["1", "true", "yes", "on"]);

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === "" ? undefined : text.trim();
}

/** `<id>:<compactions>` → id; a bare id is OpenClaw's compaction request itself. */
function splitAffinity(value: string): { id: string; compaction: boolean } {
  const match = /^(.*):(\d+)$/.exec(value);
  return match && match[1]!.length > 0 ? { id: match[1]!, compaction: false } : { id: value, compaction: true };
}

function systemOpening(messages: readonly ChatMessage[]): string {
  const system = messages.find((message) => message.role === "system" || message.role === "developer");
  return system ? flattenContent(system.content).trimStart() : "";
}

export function decideTurn(
  request: ChatRequest,
  headers: Headers,
  prefixDigests: readonly string[],
  proxy: Recipe["proxy"],
  sessions: SessionView,
  newSessionId: () => string,
  client: ClientSignals = {},
): Decision {
  const reasons: string[] = [];
  let sessionSource: TurnDecision["session"];
  let sessionId: string;
  let compaction = false;
  let explicit = true;
  const episodeHeader = header(headers, "x-episode-id");
  const explicitHeader = header(headers, "x-session-id");
  const affinityHeader = header(headers, "session_id") ?? header(headers, "x-session-affinity");
  let episode: EpisodeRef | null = null;
  if (episodeHeader !== undefined) {
    sessionSource = "header:x-episode-id";
    sessionId = episodeHeader;
    episode = { id: episodeHeader, groupId: header(headers, "x-task-id") ?? episodeGroup(episodeHeader) };
  } else if (explicitHeader !== undefined) {
    sessionSource = "header:x-session-id";
    sessionId = /^(.*):(\d+)$/.exec(explicitHeader)?.[1] || explicitHeader;
  } else if (request.session_id !== undefined && request.session_id.trim() !== "") {
    sessionSource = "body:session_id";
    sessionId = request.session_id.trim();
  } else if (client.conversation !== undefined) {
    sessionSource = "client-conversation";
    sessionId = client.conversation.id;
    reasons.push(`the client's conversation id (${client.conversation.from})`);
  } else if (affinityHeader !== undefined) {
    sessionSource = header(headers, "session_id") !== undefined ? "header:session_id" : "header:x-session-affinity";
    const affinity = splitAffinity(affinityHeader);
    sessionId = affinity.id;
    compaction = affinity.compaction;
  } else {
    explicit = false;
    const marker = runtimeSessionId(request.messages);
    const history = sessions.longestHistory(prefixDigests);
    if (marker !== null) {
      sessionSource = "openclaw-runtime-marker";
      sessionId = marker;
    } else if (history) {
      sessionSource = "history-prefix";
      sessionId = history.sessionId;
      reasons.push(`extends ${history.matched} of ${prefixDigests.length} messages of session ${history.sessionId}`);
    } else {
      sessionSource = "new-session";
      sessionId = newSessionId();
    }
  }
  reasons.unshift(`session ${sessionId} from ${sessionSource}`);

  const turnType = episode
    ? episodeTurnType(headers, episode)
    : decideTurnType(request, headers, proxy, compaction, explicit, sessionSource, sessions, sessionId, client.sideRequest);
  reasons.push(turnType.reason);
  const doneHeader = header(headers, "x-session-done");
  const sessionDone = request.session_done === true || (doneHeader !== undefined && TRUE_WORDS.has(doneHeader.toLowerCase()));
  return { sessionId, turnType: turnType.type, sessionDone, decidedBy: { session: sessionSource, turnType: turnType.source, reason: reasons.join("; ") }, episode };
}

/**
 * An episode's group when the request names none (X-Task-Id): its id without the last `:sample` part, as the
 * reference's request ids `task_key:uid:group:sample` are made; an id of another form is a group of its own.
 */
export function episodeGroup(episodeId: string): string {
  const match = /^(.+:\d+):\d+$/.exec(episodeId);
  return match ? match[1]! : episodeId;
}

type TurnTypeDecision = { type: "main" | "side"; source: TurnDecision["turnType"]; reason: string };

/** X-Turn-Type: main | anything else (side), when the request has it. */
function headerTurnType(headers: Headers): TurnTypeDecision | null {
  const headerType = header(headers, "x-turn-type")?.toLowerCase();
  return headerType === undefined ? null : { type: headerType === "main" ? "main" : "side", source: "header:x-turn-type", reason: `X-Turn-Type: ${headerType}` };
}

/** Every request of an episode is one of its steps (main), unless X-Turn-Type says otherwise. */
function episodeTurnType(headers: Headers, episode: EpisodeRef): TurnTypeDecision {
  return headerTurnType(headers) ?? { type: "main", source: "episode-step", reason: `a step of episode ${episode.id} (group ${episode.groupId})` };
}

function decideTurnType(
  request: ChatRequest,
  headers: Headers,
  proxy: Recipe["proxy"],
  compaction: boolean,
  explicit: boolean,
  sessionSource: TurnDecision["session"],
  sessions: SessionView,
  sessionId: string,
  clientSide: string | undefined,
): TurnTypeDecision {
  const explicitType = headerTurnType(headers);
  if (explicitType) return explicitType;
  if (request.turn_type !== undefined) return { type: request.turn_type, source: "body:turn_type", reason: `turn_type ${request.turn_type}` };
  if (request.model !== undefined && proxy.utility_models.includes(request.model)) {
    return { type: "side", source: "utility-model", reason: `model ${request.model} is a utility model` };
  }
  if (clientSide !== undefined) return { type: "side", source: "client-side-request", reason: clientSide };
  const opening = systemOpening(request.messages);
  const prefix = proxy.side_system_prefixes.find((candidate) => candidate.length > 0 && opening.startsWith(candidate));
  if (prefix !== undefined) return { type: "side", source: "side-system-prompt", reason: `system prompt starts with "${prefix}"` };
  if (compaction) return { type: "side", source: "openclaw-compaction", reason: "session header without :<n> (an OpenClaw compaction request)" };
  const hasTools = (request.tools?.length ?? 0) > 0;
  if (hasTools) return { type: "main", source: "agent-conversation", reason: "sent with tools (the agent's own conversation)" };
  if (!explicit && sessionSource !== "history-prefix" && sessions.exists(sessionId) && sessions.usesTools(sessionId)) {
    return { type: "side", source: "no-tools-side", reason: "no tools, in a session whose main turns carry tools" };
  }
  return { type: "main", source: "default-main", reason: "no side signal" };
}
