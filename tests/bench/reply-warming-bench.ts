// Reply warming bench: sessions whose replies are long and new each turn (as real agents' are; the proxy bench's
// fixed reply is always cached), at concurrency 1, through two proxies side by side in one run: one that encodes each
// long reply's segments in a prompt worker ahead of the next request (PromptBuilder.warmReply, the default) and one
// that does not. Added time to the first content delta, over the engine's own time. Engine, proxies and client share
// this process (one event loop), so absolute figures are higher than the proxy bench's: compare the two columns.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ChatMessage } from "../../contracts/chat.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { createProxy, type Proxy } from "../../orchestrator/proxy/proxy-server.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";

const SESSIONS = 12;
const TURNS = 10;
const PREFILL_MS = 30;
const files = await loadTokenizerFiles("builtin:qwen3");
const engineTokenizer = new ModelTokenizer(files);

/** Deterministic prose of about `chars` characters from `seed`, with made-up words (few BPE cache hits, as in real text). */
function prose(seed: number, chars: number): string {
  let state = seed >>> 0 || 1;
  const next = (): number => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 4294967296;
  const syllables = ["ka", "lo", "mi", "ren", "tas", "vu", "qel", "dor", "sin", "pa", "zu", "tre", "gol", "fi", "nox", "bra"];
  let text = "";
  while (text.length < chars) {
    let word = "";
    for (let count = 1 + Math.floor(next() * 3); count > 0; count--) word += syllables[Math.floor(next() * syllables.length)];
    text += word + (next() < 0.1 ? ". " : next() < 0.05 ? `, ${Math.floor(next() * 100_000)} ` : " ");
  }
  return text;
}

// ---------- fake engine: the reply depends on the prompt only, so both proxies get the same one ----------
/** The engine's own time for the request in flight (one at a time): arrival and first chunk. */
let engineTime = { got: 0, chunk: 0 };
const engine = createServer(async (request: IncomingMessage, response: ServerResponse) => {
  let body = "";
  for await (const part of request) body += part;
  const got = performance.now();
  const ids = (JSON.parse(body) as { input_ids: number[] }).input_ids;
  let seed = ids.length;
  for (let index = Math.max(0, ids.length - 64); index < ids.length; index++) seed = (Math.imul(seed, 31) + ids[index]!) >>> 0;
  const chars = 300 + (seed % 2700); // 300–3,000 characters
  const reply = [...(await engineTokenizer.encode(prose(seed, chars))), engineTokenizer.tokenId("<|im_end|>")!];
  await new Promise((resolve) => setTimeout(resolve, PREFILL_MS));
  response.writeHead(200, { "content-type": "text/event-stream" });
  engineTime = { got, chunk: performance.now() };
  const meta = { id: "bench", finish_reason: { type: "stop", matched: reply.at(-1) }, prompt_tokens: ids.length, weight_version: "default", completion_tokens: reply.length, output_token_logprobs: reply.map((id) => [-0.25, id, null]) };
  response.end(`data: ${JSON.stringify({ text: "", output_ids: reply, meta_info: meta })}\n\ndata: [DONE]\n\n`);
});
await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", () => resolve()));
const engineUrl = `http://127.0.0.1:${(engine.address() as { port: number }).port}`;

// ---------- two proxies, each with its own tokenizer (its own segment cache) and one prompt worker ----------
const recordsDirs: string[] = [];
async function startProxy(warmReplies: boolean): Promise<{ proxy: Proxy; url: string }> {
  const recordsDir = await mkdtemp(path.join(tmpdir(), "warm-bench-"));
  recordsDirs.push(recordsDir);
  const proxy = createProxy({
    recipe: recipeSchema.parse({ engine: { kind: "rehearsal" }, model: { path: "builtin:qwen3" } }),
    policy: new SglangClient({ baseUrl: engineUrl, timeoutMs: 30_000 }),
    tokenizer: new ModelTokenizer(files),
    template: new ChatTemplate(files),
    bus: new EventBus(100),
    onTurnClosed: () => undefined,
    readiness: () => ({ ready: true, reason: "bench", retryAfterS: 0 }),
    apiKey: undefined,
    recordsDir,
    promptWorkers: 1,
    warmReplies,
  });
  const { port } = await proxy.listen(0, "127.0.0.1");
  return { proxy, url: `http://127.0.0.1:${port}/v1/chat/completions` };
}
const targets = [
  { label: "reply warmed ahead", ...(await startProxy(true)), added: [] as number[] },
  { label: "not warmed", ...(await startProxy(false)), added: [] as number[] },
];
await new Promise((resolve) => setTimeout(resolve, 2000)); // prompt workers start

/** One streamed request: added ms to the first content delta over the engine's own time, and the content. */
async function turn(url: string, session: string, messages: ChatMessage[]): Promise<{ added: number; content: string }> {
  const started = performance.now();
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-session-id": session }, body: JSON.stringify({ messages, stream: true }) });
  let firstContent = 0;
  let body = "";
  for await (const part of response.body as unknown as AsyncIterable<Uint8Array>) {
    const text = Buffer.from(part).toString("utf8");
    if (!firstContent && /"content":"[^"]/.test(text)) firstContent = performance.now();
    body += text;
  }
  const content = body
    .split("\n")
    .filter((line) => line.startsWith("data: {"))
    .map((line) => (JSON.parse(line.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? "")
    .join("");
  return { added: firstContent - started - (engineTime.chunk - engineTime.got), content };
}

const system: ChatMessage = { role: "system", content: `You are a personal assistant.\n${prose(99, 48_000)}` };
for (let session = 0; session < SESSIONS; session++) {
  const histories = targets.map(() => [system] as ChatMessage[]);
  for (let index = 1; index <= TURNS; index++) {
    // the two proxies take turns going first
    const order = (session + index) % 2 === 0 ? [0, 1] : [1, 0];
    for (const which of order) {
      const history = histories[which]!;
      history.push({ role: "user", content: `(session ${session}) Question ${index}: what changed in ${prose(session * 100 + index, 40)}?` });
      const result = await turn(targets[which]!.url, `s${session}`, history);
      history.push({ role: "assistant", content: result.content }); // replayed as OpenClaw does: content, no reasoning
      if (index > 1) targets[which]!.added.push(result.added);
    }
    await new Promise((resolve) => setTimeout(resolve, 20)); // the user reads for a moment
  }
}

const percentile = (values: number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const [warm, cold] = targets;
console.log(`Replies of 300–3,000 characters, new each turn; concurrency 1; ${warm!.added.length} turns per proxy (turn 1 of each session excluded). Added ms to the first content delta:\n`);
console.log("| proxy | p50 | p90 |");
console.log("| --- | --- | --- |");
for (const target of targets) console.log(`| ${target.label} | ${percentile(target.added, 0.5).toFixed(2)} | ${percentile(target.added, 0.9).toFixed(2)} |`);
console.log(`\nwarmed / not warmed: p50 ${(percentile(warm!.added, 0.5) / percentile(cold!.added, 0.5)).toFixed(2)}×, p90 ${(percentile(warm!.added, 0.9) / percentile(cold!.added, 0.9)).toFixed(2)}×`);
for (const target of targets) await target.proxy.close(1000);
engine.close();
for (const dir of recordsDirs) await rm(dir, { recursive: true, force: true });
process.exit(0);
