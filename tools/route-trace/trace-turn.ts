// Traces the route of one closed turn through judging as it runs: from JudgePipeline.onTurnClosed to its turn-judged
// event, the files of orchestrator/ that control enters, in order (a call into another file, or a return to the
// caller's file, starts a new stay). Counts stays, files and returns to a file already visited.
// Usage: node --import tsx --import ./tools/route-trace/register.mjs tools/route-trace/trace-turn.ts [binary|opd|combine|step]
import path from "node:path";
import { fileURLToPath } from "node:url";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import type { ChatMessage } from "../../contracts/chat.ts";
import type { RunEvent } from "../../contracts/events.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import type { SampleSink } from "../../contracts/sample-sink.ts";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { JudgePipeline } from "../../orchestrator/judging/judge-pipeline.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { JudgeResponder } from "../../rehearsal/judge/responder.ts";
import { StandinSglangServer } from "../../rehearsal/sglang/server.ts";

const ROOT = path.resolve(fileURLToPath(import.meta.url), "../../..");
const kind = process.argv[2] ?? "binary";
const route: string[] = [];
let tracing = false;

/** The orchestrator/ file of a stack frame, if it is one. */
function frameFile(frame: string | undefined): string | null {
  const match = /\(((?:file:\/\/)?\/[^)]+?):\d+:\d+\)$|at ((?:file:\/\/)?\/\S+?):\d+:\d+$/.exec(frame?.trim() ?? "");
  const location = match?.[1] ?? match?.[2];
  if (!location) return null;
  const file = path.relative(ROOT, location.startsWith("file:") ? fileURLToPath(location) : location);
  return file.startsWith("orchestrator/") ? file : null;
}

(globalThis as { __routeEnter?: () => void }).__routeEnter = () => {
  if (!tracing) return;
  const frames = new Error().stack!.split("\n").slice(2, 4); // the function entered, then its caller
  const callee = frameFile(frames[0]);
  const caller = frameFile(frames[1]);
  if (caller && route.at(-1) !== caller) route.push(caller);
  if (callee && route.at(-1) !== callee) route.push(callee);
};

/**
 * One closed turn as the proxy hands it on, rendered with Qwen3's template. What comes next cues the rehearsal judge:
 * thanks (+1), a rejection of the answer's tone (-1 and a hint, for the methods that ask one), or a tool's answer (+1).
 */
async function closedTurn(template: ChatTemplate, tokenizer: ModelTokenizer, step: boolean, wantsHint: boolean): Promise<ClosedTurn> {
  const messages: ChatMessage[] = [{ role: "user", content: "How far is 5 miles in km?" }];
  const content = "As an AI language model, I can tell you that 5 miles is about 8 km.";
  const responseIds = [...(await tokenizer.encode(`<think>\nMultiply by 1.609.\n</think>\n\n${content}`)), tokenizer.tokenId("<|im_end|>")!];
  const next = step ? "8.04672" : wantsHint ? "That sounds like an AI. Be more natural." : "Thanks, that helps.";
  return {
    version: 1,
    sessionId: "s-route",
    turn: 0,
    decidedBy: { session: "header:x-session-id", turnType: "agent-conversation", reason: "route trace" },
    messages,
    tools: null,
    promptIds: Int32Array.from(await tokenizer.encode(template.render(messages, { addGenerationPrompt: true }))),
    responseIds,
    responseLogProbs: responseIds.map(() => -0.1),
    response: { role: "assistant", content, reasoning_content: "Multiply by 1.609." },
    finishReason: "stop",
    weightVersions: [{ version: "0", start: 0, end: 4 }, { version: "1", start: 4, end: responseIds.length }], // (a weight update mid-turn)
    approximate: false,
    startedAt: 1,
    firstTokenAt: 2,
    endedAt: 3,
    nextState: { role: step ? "tool" : "user", messages: [step ? { role: "tool", content: next, tool_call_id: "call_1" } : { role: "user", content: next }], text: next },
    closedBy: "next-request",
    ...(step ? { episode: { id: "e:route", groupId: "g:route" } } : {}),
  };
}

// The pipeline as the judging thread runs it: its bus carries only what it emits (the worker posts those on).
const recipes = { binary: { method: "binary" }, opd: { method: "opd", sampling: { temperature: 1 } }, combine: { method: "combine", sampling: { temperature: 1 } }, step: { method: "binary", episodes: { samples_per_task: 1 } } } as const;
const recipe = recipeSchema.parse({ engine: { kind: "rehearsal" }, ...recipes[kind as keyof typeof recipes], judge: { votes: 1 }, opd: { teacher: "engine" } });
const files = await loadTokenizerFiles("builtin:qwen3");
const [template, tokenizer] = [new ChatTemplate(files), new ModelTokenizer(files)];
const server = new StandinSglangServer({ tokenizer, responder: await JudgeResponder.create(tokenizer), role: "judge" });
const { url } = await server.start();
const bus = new EventBus();
const recordsDir = await mkdtemp(path.join(tmpdir(), "route-trace-"));
const staleness = new StalenessPolicy(new WeightVersionTracker(), recipe.training.max_staleness);
const sink: SampleSink = { put: async () => "stored", close: async () => undefined };
const pipeline = new JudgePipeline({ recipe, staleness, judge: new SglangClient({ baseUrl: url }), judgeTemplate: template, judgeTokenizer: tokenizer, policyTemplate: template, policyTokenizer: tokenizer, bus, sink, recordsDir });

const turn = await closedTurn(template, tokenizer, kind === "step", recipe.method !== "binary");
const judged = new Promise<void>((resolve) => bus.subscribe((event) => event.type === "turn-judged" && resolve()));
tracing = true;
pipeline.onTurnClosed(turn);
if (kind === "step") {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const end = { type: "episode-end", episodeId: "e:route", groupId: "g:route", score: 1, failure: null, steps: 1, weightVersion: "0" } as const;
  const follower = pipeline as unknown as { follow?: (event: RunEvent) => void };
  if (follower.follow) follower.follow({ ...end, at: Date.now() }); // (before the reshaping the pipeline listened to its bus)
  else bus.emit(end);
}
await judged;
tracing = false;
await pipeline.drain(1000);
await server.close();

const visited = new Set(route);
const entries = new Map<string, number>();
for (const file of route) entries.set(file, (entries.get(file) ?? 0) + 1);
route.forEach((file, index) => console.log(`${String(index + 1).padStart(3)} ${file}`));
console.log(`\n${kind}: ${route.length} stays in ${visited.size} files, ${route.length - visited.size} returns to a file already visited`);
console.log([...entries].sort((a, b) => b[1] - a[1]).map(([file, count]) => `${count}× ${file}`).join("\n"));
