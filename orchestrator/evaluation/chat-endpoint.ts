// One non-streamed call to an OpenAI-compatible /v1/chat/completions (the proxy, the judge engine, any server):
// the reply's text, or a typed error naming the URL. Retries nothing; callers decide what a failure means.
import { z } from "zod";
import { OpenclawRlError } from "../../contracts/errors.ts";

export interface ChatEndpoint {
  /** Base URL without /v1 (http://host:port) or with it; /v1/chat/completions is appended as needed. */
  url: string;
  model: string;
  apiKey?: string;
  headers?: Record<string, string>;
  timeoutMs: number;
}

const replySchema = z.object({ choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1) });

export function completionsUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, "");
  return trimmed.endsWith("/v1") ? `${trimmed}/chat/completions` : `${trimmed}/v1/chat/completions`;
}

export async function chatOnce(
  endpoint: ChatEndpoint,
  messages: Array<{ role: "system" | "user" | "assistant"; content: string }>,
  sampling: { temperature: number; max_tokens: number; seed?: number },
  signal?: AbortSignal,
): Promise<string> {
  const url = completionsUrl(endpoint.url);
  const headers: Record<string, string> = { "content-type": "application/json", ...endpoint.headers };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const timeout = AbortSignal.timeout(endpoint.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: endpoint.model, messages, stream: false, ...sampling }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (cause) {
    throw new OpenclawRlError("ENGINE_UNAVAILABLE", `${url}: ${(cause as Error).message}`, { path: url, cause, retryable: true });
  }
  const text = await response.text();
  if (!response.ok) throw new OpenclawRlError("ENGINE_ERROR", `${url} answered ${response.status}: ${text.slice(0, 200)}`, { path: url, retryable: response.status >= 500 || response.status === 429 });
  const parsed = replySchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new OpenclawRlError("ENGINE_ERROR", `${url} answered a body without choices[0].message`, { path: url });
  return parsed.data.choices[0]!.message.content ?? "";
}
