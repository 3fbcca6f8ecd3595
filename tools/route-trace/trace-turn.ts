// Traces the route of one closed turn through judging as it runs: from JudgePipeline.onTurnClosed to its turn-judged
// event, the files of orchestrator/ that control enters, in order (a call into another file, or a return to the
// caller's file, starts a new stay). Counts stays, files and returns to a file already visited.
// Usage: node --import tsx --import ./tools/route-trace/register.mjs tools/route-trace/trace-turn.ts [binary|opd|combine|step]
import path from "node:path";
import { fileURLToPath } from "node:url";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import type { RunEvent } from "../../contracts/events.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { JudgePipeline } from "../../orchestrator/judging/judge-pipeline.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { StandinSglangServer } from "../../rehearsal/standin-sglang-server.ts";
import { makeTurn, MemorySink, qwen3, ScriptedJudge } from "../../tests/judging/judge-harness.ts";

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

// The pipeline as the judging thread runs it: its bus carries only what it emits (the worker posts those on).
const recipes = { binary: { method: "binary" }, opd: { method: "opd", sampling: { temperature: 1 } }, combine: { method: "combine", sampling: { temperature: 1 } }, step: { method: "binary", episodes: { samples_per_task: 1 } } } as const;
const recipe = recipeSchema.parse({ engine: { kind: "rehearsal" }, ...recipes[kind as keyof typeof recipes], judge: { votes: 1 }, opd: { teacher: "engine" } });
const { template, tokenizer } = await qwen3();
const judge = new ScriptedJudge();
judge.script("CASE-route", "eval", ["\\boxed{1}"]);
judge.script("CASE-route", "hint", ["\\boxed{1} [HINT_START]Use metric units![HINT_END]"]);
const server = new StandinSglangServer({ tokenizer, responder: judge, role: "judge" });
const { url } = await server.start();
const bus = new EventBus();
const recordsDir = await mkdtemp(path.join(tmpdir(), "route-trace-"));
const staleness = new StalenessPolicy(new WeightVersionTracker(), recipe.training.max_staleness);
const pipeline = new JudgePipeline({ recipe, staleness, judge: new SglangClient({ baseUrl: url }), judgeTemplate: template, judgeTokenizer: tokenizer, policyTemplate: template, policyTokenizer: tokenizer, bus, sink: new MemorySink(), recordsDir });

const closed = await makeTurn({ marker: "CASE-route", nextRole: kind === "step" ? "tool" : "user" });
const turn = kind === "step" ? { ...closed, episode: { id: "e:route", groupId: "g:route" } } : closed;
const judged = new Promise<void>((resolve) => bus.subscribe((event) => event.type === "turn-judged" && resolve()));
tracing = true;
pipeline.onTurnClosed(turn);
if (kind === "step") {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const end = { type: "episode-end", episodeId: "e:route", groupId: "g:route", score: 1, failure: null, steps: 1, weightVersion: "8" } as const;
  const follower = pipeline as unknown as { follow?: (event: RunEvent) => void };
  if (follower.follow) follower.follow({ ...end, at: Date.now() }); // (before the reshaping the pipeline listened to its bus)
  else bus.emit(end);
}
await judged;
tracing = false;
await pipeline.drain(1000);
await server.close();

const files = new Set(route);
const entries = new Map<string, number>();
for (const file of route) entries.set(file, (entries.get(file) ?? 0) + 1);
route.forEach((file, index) => console.log(`${String(index + 1).padStart(3)} ${file}`));
console.log(`\n${kind}: ${route.length} stays in ${files.size} files, ${route.length - files.size} returns to a file already visited`);
console.log([...entries].sort((a, b) => b[1] - a[1]).map(([file, count]) => `${count}× ${file}`).join("\n"));
