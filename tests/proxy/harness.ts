// Test harness: Qwen3's real tokenizer and chat template, the SGLang-shaped stand-in at the outer edge with a
// scripted responder (continuation-aware), and a proxy in front of it, all on loopback with ephemeral ports.
import type { StreamForm } from "../../contracts/sglang.ts";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RecipeInput } from "../../contracts/recipe.ts";
import type { RunEvent } from "../../contracts/events.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { StandinSglangServer } from "../../rehearsal/sglang/server.ts";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { createProxy, type Proxy } from "../../orchestrator/proxy/proxy-server.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { HANG_GUARD_MS } from "../support/hang-guard.ts";
import { testRecipe } from "./fixtures.ts";

let shared: Promise<{ tokenizer: ModelTokenizer; template: ChatTemplate }> | null = null;

export function qwen3(): Promise<{ tokenizer: ModelTokenizer; template: ChatTemplate }> {
  shared ??= loadTokenizerFiles("builtin:qwen3").then((files) => ({ tokenizer: new ModelTokenizer(files), template: new ChatTemplate(files) }));
  return shared;
}

/** What the model says for a prompt (the full reply; continuations are handled by the responder). */
export type Script = (promptText: string) => string;

export interface HarnessOptions {
  script: Script;
  tokenDelayMs?: number;
  recipe?: RecipeInput;
  apiKey?: string;
  ready?: () => boolean;
  notReadyReason?: string; // the traffic gate's reason while ready() is false (default "policy engine starting")
  policyUrl?: string; // point the proxy elsewhere (an engine that is down)
  policyTimeoutMs?: number; // the policy client's call and stream-idle timeout (default 10 s; run.ts uses proxy.request_timeout_s)
  promptWorkers?: number; // default 0 here: tests share two cores
  streamForm?: StreamForm; // which of SGLang's streaming forms the stand-in uses (default cumulative)
  turnsJsonl?: string; // turns.jsonl as an earlier run left it in the records folder
  /** Another family's model (default Qwen3's): its tokenizer, template, end-of-turn ids and SGLang parser names. */
  model?: { tokenizer: ModelTokenizer; template: ChatTemplate; eosTokenIds: number[]; parsers: { toolCallParser: string | null; reasoningParser: string | null } };
}

export interface Harness {
  url: string;
  standin: StandinSglangServer;
  proxy: Proxy;
  closed: ClosedTurn[];
  /** The first closed turn that matches, once the proxy has closed it (a stream can end before its turn closes). */
  closedTurn(match: (turn: ClosedTurn) => boolean): Promise<ClosedTurn>;
  events: RunEvent[];
  versions: string[];
  recordsDir: string;
  tokenizer: ModelTokenizer;
  template: ChatTemplate;
  close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const { tokenizer, template } = options.model ?? (await qwen3());
  const standin = new StandinSglangServer({
    tokenizer,
    chatTemplate: template,
    ...(options.model ? { eosTokenIds: options.model.eosTokenIds } : {}),
    tokenDelayMs: options.tokenDelayMs ?? 0,
    streamForm: options.streamForm,
    responder: {
      reply: async ({ promptText, inputIds }) => {
        const full = await tokenizer.encode(options.script(promptText));
        return { tokenIds: full.slice(overlap(inputIds, full)) };
      },
    },
  });
  const { url: engineUrl } = await standin.start();
  const recordsDir = await mkdtemp(path.join(tmpdir(), "proxy-test-"));
  if (options.turnsJsonl !== undefined) await writeFile(path.join(recordsDir, "turns.jsonl"), options.turnsJsonl, { mode: 0o600 });
  const bus = new EventBus();
  const events: RunEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const closed: ClosedTurn[] = [];
  const versions: string[] = [];
  const weights = new WeightVersionTracker();
  const proxy = createProxy({
    recipe: testRecipe({ model: { path: "builtin:qwen3", tokenizer_path: "builtin:qwen3" }, ...options.recipe }),
    policy: new SglangClient({ baseUrl: options.policyUrl ?? engineUrl, timeoutMs: options.policyTimeoutMs ?? 10_000 }),
    tokenizer,
    template,
    ...(options.model ? { parsers: options.model.parsers } : {}),
    bus,
    onTurnClosed: (turn) => closed.push(turn),
    // the run's weight-version owner, recording each label the proxy reports (consecutive repeats once)
    versions: {
      observe: (version: string) => {
        if (versions.at(-1) !== version) versions.push(version);
        return weights.observe(version);
      },
    },
    readiness: () => (options.ready?.() ?? true ? { ready: true, reason: "engines ready", retryAfterS: 0 } : { ready: false, reason: options.notReadyReason ?? "policy engine starting", retryAfterS: 7 }),
    apiKey: options.apiKey,
    recordsDir,
    promptWorkers: options.promptWorkers ?? 0,
  });
  const address = await proxy.listen(0, "127.0.0.1");
  return {
    url: `http://127.0.0.1:${address.port}`,
    standin,
    proxy,
    closed,
    async closedTurn(match) {
      await waitFor(() => closed.some(match));
      return closed.find(match)!;
    },
    events,
    versions,
    recordsDir,
    tokenizer,
    template,
    async close() {
      await proxy.close(1000);
      await standin.close();
      await rm(recordsDir, { recursive: true, force: true });
    },
  };
}

/** Longest k such that input ends with full[0..k): how much of the reply a continuation already holds. */
function overlap(input: readonly number[], full: readonly number[]): number {
  for (let k = Math.min(full.length, input.length); k > 0; k--) {
    let same = true;
    for (let index = 0; index < k && same; index++) same = input[input.length - k + index] === full[index];
    if (same) return k;
  }
  return 0;
}

export interface SseEvent {
  at: number;
  data: Record<string, unknown> | "[DONE]";
}

/** The raw SSE frames of a response body (comments included), each handed to `onFrame` as it arrives. */
export async function sseFrames(response: Response, onFrame?: (frame: string) => void | Promise<void>): Promise<string[]> {
  const frames: string[] = [];
  if (!response.body) return frames;
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let boundary: number;
    while ((boundary = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      frames.push(frame);
      await onFrame?.(frame);
    }
  }
  return frames;
}

/** Posts a chat request and reads the SSE answer event by event, with arrival times. */
export async function streamChat(url: string, body: unknown, headers: Record<string, string> = {}, onEvent?: (event: SseEvent) => void | Promise<void>): Promise<{ status: number; events: SseEvent[]; headers: Headers }> {
  const response = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const events: SseEvent[] = [];
  await sseFrames(response, async (frame) => {
    const line = frame.replace(/^data: /, "");
    const event: SseEvent = { at: Date.now(), data: line === "[DONE]" ? "[DONE]" : (JSON.parse(line) as Record<string, unknown>) };
    events.push(event);
    await onEvent?.(event);
  });
  return { status: response.status, events, headers: response.headers };
}

export async function postChat(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

interface Delta {
  content?: string;
  reasoning_content?: string;
  tool_calls?: { index: number; id?: string; function: { name?: string; arguments?: string } }[];
}

/** Joins streamed deltas into content, reasoning and tool calls. */
export function assemble(events: SseEvent[]): { content: string; reasoning: string; toolCalls: { id: string; name: string; arguments: string }[]; finish: string | null; usage: unknown } {
  let content = "";
  let reasoning = "";
  const toolCalls: { id: string; name: string; arguments: string }[] = [];
  let finish: string | null = null;
  let usage: unknown = null;
  for (const event of events) {
    if (event.data === "[DONE]") continue;
    const choices = event.data.choices as { delta: Delta; finish_reason: string | null }[] | undefined;
    if (event.data.usage) usage = event.data.usage;
    const choice = choices?.[0];
    if (!choice) continue;
    content += choice.delta.content ?? "";
    reasoning += choice.delta.reasoning_content ?? "";
    for (const call of choice.delta.tool_calls ?? []) {
      const entry = (toolCalls[call.index] ??= { id: call.id ?? "", name: "", arguments: "" });
      entry.name += call.function.name ?? "";
      entry.arguments += call.function.arguments ?? "";
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  return { content, reasoning, toolCalls, finish, usage };
}

export async function waitFor(condition: () => boolean, timeoutMs = HANG_GUARD_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
