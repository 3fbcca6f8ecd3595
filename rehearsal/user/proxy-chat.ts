// A rehearsal user's side of a chat through the proxy: one main-turn request (OpenAI chat completions, streamed
// like OpenClaw or whole), waiting out 503s while engines (re)start, read back as content and tool calls.
import { SseReader } from "../../lib/http/sse-events.ts";
import type { ChatMessage, Tool } from "../../contracts/chat.ts";

export interface ProxyChatOptions {
  proxyUrl: string;
  apiKey?: string;
  model: string;
  requestTimeoutMs?: number;
  /** How long to keep retrying while the proxy answers 503 (engines starting or restarting); default 120 s. */
  unavailableWaitMs?: number;
  stream?: boolean;
}

export interface Reply {
  content: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
}

/** Sends `messages` as session `session`'s next main turn and returns the assistant's reply. */
export async function askProxy(options: ProxyChatOptions, session: string, messages: ChatMessage[], tools?: Tool[]): Promise<Reply> {
  const stream = options.stream ?? true;
  // as a well-behaved client: an engine that is (re)starting answers 503 with Retry-After; wait, up to a bound
  const deadline = Date.now() + (options.unavailableWaitMs ?? 120_000);
  for (;;) {
    const response = await post(options, session, messages, tools, stream);
    if (response.status === 503 && Date.now() < deadline) {
      await response.arrayBuffer();
      const seconds = Number(response.headers.get("retry-after") ?? "1");
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(Number.isFinite(seconds) ? seconds : 1, 0.2), 5) * 1000));
      continue;
    }
    if (!response.ok) throw new Error(`the proxy answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    return stream ? readStream(await response.text()) : readWhole(await response.json());
  }
}

function post(options: ProxyChatOptions, session: string, messages: ChatMessage[], tools: Tool[] | undefined, stream: boolean): Promise<Response> {
  return fetch(`${options.proxyUrl.replace(/\/+$/, "")}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-session-id": session,
      "x-turn-type": "main",
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    },
    body: JSON.stringify({ model: options.model, messages, stream, ...(tools ? { tools } : {}) }),
    signal: AbortSignal.timeout(options.requestTimeoutMs ?? 120_000),
  });
}

/** The policy's weight version (null when it cannot be read). */
export async function policyWeightVersion(policyUrl: string): Promise<string | null> {
  try {
    const response = await fetch(`${policyUrl}/get_weight_version`, { signal: AbortSignal.timeout(5000) });
    return ((await response.json()) as { weight_version?: string }).weight_version ?? null;
  } catch {
    return null;
  }
}

function readWhole(body: unknown): Reply {
  const message = (body as { choices?: Array<{ message?: { content?: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> | null } }> }).choices?.[0]?.message;
  return {
    content: message?.content ?? "",
    toolCalls: (message?.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
  };
}

/** Joins an OpenAI SSE stream: content deltas, and tool-call deltas by index (id/name first, argument pieces after). */
export function readStream(text: string): Reply {
  let content = "";
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  const reader = new SseReader();
  const last = [...reader.push(text), reader.end()];
  for (const event of last) {
    const data = event?.data?.trim() ?? "";
    if (data.length === 0 || data === "[DONE]") continue;
    const chunk = JSON.parse(data) as { error?: { message?: string }; choices?: Array<{ delta?: { content?: string | null; tool_calls?: Array<{ index: number; id?: string | null; function?: { name?: string | null; arguments?: string | null } }> } }> };
    if (chunk.error) throw new Error(`the proxy sent an error chunk: ${chunk.error.message ?? "unknown"}`);
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) continue;
    content += delta.content ?? "";
    for (const call of delta.tool_calls ?? []) {
      const entry = calls.get(call.index) ?? { id: "", name: "", arguments: "" };
      if (call.id) entry.id = call.id;
      if (call.function?.name) entry.name = call.function.name;
      entry.arguments += call.function?.arguments ?? "";
      calls.set(call.index, entry);
    }
  }
  return { content, toolCalls: [...calls.values()] };
}
