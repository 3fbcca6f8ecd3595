// Proxy overhead bench: the same fake SGLang engine reached directly (/generate with input_ids) and through the
// capture proxy, with OpenClaw-sized sessions (48 KB system prompt, 12 tools, up to 30 turns). Engine and proxy run
// in their own processes on loopback; this process is the client. Prints markdown tables. Bounded loops only. The
// engine, the traffic and the proxies of --judging and --compare are in fake-engine, openclaw-traffic, proxy-children.
import { Agent, createServer, request as httpRequest } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { performance as eventLoop } from "node:perf_hooks";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import type { ClosedTurn } from "../../contracts/turn.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { JudgePipeline } from "../../orchestrator/judging/judge-pipeline.ts";
import { JudgeThread } from "../../orchestrator/judging/judge-thread.ts";
import { followBus } from "../judging/judge-harness.ts";
import { StalenessPolicy } from "../../orchestrator/weights/staleness-policy.ts";
import { WeightVersionTracker } from "../../orchestrator/weights/weight-version-tracker.ts";
import { createProxy } from "../../orchestrator/proxy/proxy-server.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { ENGINE, runEngine } from "./fake-engine.ts";
import { messagesFor, REPLY, tools } from "./openclaw-traffic.ts";
import { cpuMs } from "./process-cpu.ts";
import { firstLine, startJudgingProxy, startRevisionProxy, type ProxyProbe } from "./proxy-children.ts";
import { timedRequest } from "./timed-request.ts";

const TURNS = 30;
/**
 * With --judging every user message after the first also corrects the previous answer (openclaw-traffic.ts), so that
 * opd and combine score the teacher on every turn.
 */
const CORRECTS = process.argv.some((argument) => argument.startsWith("--judging="));
const TOOLS = tools();
const SELF = fileURLToPath(import.meta.url);

// ---------- child: proxy ----------
/**
 * The proxy, alone or (with `judging`) judging every closed turn with the stand-in judge at `judgeUrl`, counting the
 * samples: on a judging thread as `openclaw-rl start` runs it, or (`on: "loop"`) with the pipeline on the proxy's
 * event loop, as it ran before judging had its own thread.
 */
async function runProxy(engineUrl: string, judging?: { method: string; judgeUrl: string; on: "thread" | "loop" }): Promise<void> {
  const files = await loadTokenizerFiles("builtin:qwen3");
  const recordsDir = await mkdtemp(path.join(tmpdir(), "proxy-bench-"));
  let closed = 0;
  let samples = 0;
  let judged = 0;
  const recipe = recipeSchema.parse({ engine: { kind: "rehearsal" }, model: { path: "builtin:qwen3" }, ...(judging ? { method: judging.method } : {}) });
  const tokenizer = new ModelTokenizer(files);
  const template = new ChatTemplate(files);
  const bus = new EventBus(100);
  bus.subscribe((event) => void (event.type === "turn-judged" && judged++));
  const sink = {
    put: async () => {
      samples++;
      return "stored" as const;
    },
    close: async () => undefined,
  };
  let judge: { onTurnClosed(turn: ClosedTurn): void; drain(ms: number): Promise<void> } | null = null;
  const versions = new WeightVersionTracker();
  if (judging?.on === "loop") {
    const staleness = new StalenessPolicy(versions, recipe.training.max_staleness);
    const pipeline = new JudgePipeline({ recipe, staleness, judge: new SglangClient({ baseUrl: judging.judgeUrl }), judgeTemplate: template, judgeTokenizer: tokenizer, policyTemplate: template, policyTokenizer: tokenizer, bus, sink, recordsDir });
    followBus(pipeline, bus);
    judge = pipeline;
  } else if (judging) {
    judge = await JudgeThread.start({ data: { recipe, recordsDir, policySource: "builtin:qwen3", judgeSource: "builtin:qwen3", judgeUrl: judging.judgeUrl }, bus, sink, versions });
  }
  const proxy = createProxy({
    recipe,
    policy: new SglangClient({ baseUrl: engineUrl, timeoutMs: 30_000 }),
    tokenizer,
    template,
    bus,
    onTurnClosed: (turn) => {
      closed++;
      judge?.onTurnClosed(turn);
    },
    readiness: () => ({ ready: true, reason: "bench", retryAfterS: 0 }),
    apiKey: undefined,
    recordsDir,
  });
  const { port } = await proxy.listen(0, "127.0.0.1");
  const probe = createServer((request, response) => {
    if (request.url === "/quit") {
      response.end("{}");
      void proxy
        .close(0)
        .then(() => judge?.drain(0))
        .then(() => rm(recordsDir, { recursive: true, force: true }))
        .then(() => process.exit(0));
      return;
    }
    const cpu = process.cpuUsage();
    const loop = eventLoop.eventLoopUtilization();
    response.end(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, mainMs: loop.active, closed, samples, judged: judge ? judged : null, stats: proxy.stats() }));
  });
  probe.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port, probePort: (probe.address() as { port: number }).port })));
}

// ---------- child: bare relay ----------
/**
 * The floor of any Node HTTP proxy on this machine: forwards each request's bytes to the engine and the engine's
 * bytes back, with no parsing at all. (Added latency over direct = the cost of one more hop, before any capture work.)
 */
async function runRelay(engineUrl: string): Promise<void> {
  const target = new URL(engineUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const server = createServer((request, response) => {
    const upstream = httpRequest({ host: target.hostname, port: target.port, path: request.url, method: request.method, agent, headers: { "content-type": "application/json", "content-length": request.headers["content-length"] ?? "" } });
    upstream.once("response", (answer) => {
      response.writeHead(answer.statusCode ?? 502, { "content-type": answer.headers["content-type"] ?? "application/json" });
      answer.pipe(response);
    });
    upstream.once("error", () => response.destroy());
    request.pipe(upstream);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: (server.address() as { port: number }).port })));
}

// ---------- client ----------
/** A content delta of the proxy's stream, or output ids of /generate's: the first generated text. */
const GENERATED_TEXT = (part: string) => part.includes('"output_ids":[') || part.includes('"content":"S');

/** Whole-response time, or (streamed) time to the first event that carries generated text. */
function timed(url: string, body: string, stream: boolean): Promise<number> {
  return timedRequest(url, body, stream ? GENERATED_TEXT : null);
}

export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? NaN;
}

async function main(): Promise<void> {
  const files = await loadTokenizerFiles("builtin:qwen3");
  const tokenizer = new ModelTokenizer(files);
  const template = new ChatTemplate(files);
  const replyIds = [...(await tokenizer.encode(REPLY)), tokenizer.tokenId("<|im_end|>")!];
  const tsx = ["--import", "tsx", SELF];
  const cumulative = process.argv.includes("--cumulative");
  const engine = execa(process.execPath, [...tsx, "--role=engine", `--reply=${JSON.stringify(replyIds)}`, ...(cumulative ? ["--cumulative"] : [])], { reject: false });
  const { port: enginePort } = await firstLine(engine);
  const engineUrl = `http://127.0.0.1:${enginePort}`;
  // --profile=DIR: the proxy process writes a V8 CPU profile (main thread and prompt workers) into DIR
  const profileDir = process.argv.find((argument) => argument.startsWith("--profile="))?.slice(10);
  const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  // --proxy-flags="--max-semi-space-size=64 …": node flags for the proxy process (GC settings and the like)
  const proxyFlags = (process.argv.find((argument) => argument.startsWith("--proxy-flags="))?.slice(14) ?? "").split(" ").filter(Boolean);
  const proxyChild = execa(process.execPath, [...proxyFlags, ...profile, ...tsx, "--role=proxy", `--engine=${engineUrl}`], { reject: false });
  const { port: proxyPort, probePort } = await firstLine(proxyChild);
  const proxyUrl = `http://127.0.0.1:${proxyPort}/v1/chat/completions`;
  const relayChild = execa(process.execPath, [...tsx, "--role=relay", `--engine=${engineUrl}`], { reject: false });
  const { port: relayPort } = await firstLine(relayChild);
  const probe = async () => (await (await fetch(`http://127.0.0.1:${probePort}/`)).json()) as ProxyProbe;
  // --compare=REV: the proxy of another git revision (a temporary worktree) measured side by side in the same run
  const compareRev = process.argv.find((argument) => argument.startsWith("--compare="))?.slice(10);
  // --judging=binary|opd|combine: instead, a second proxy of this revision judging every closed turn with a stand-in
  // judge in its own process, on a judging thread as `openclaw-rl start` runs it (--judging-on=loop: on its event loop)
  const judgingMethod = process.argv.find((argument) => argument.startsWith("--judging="))?.slice(10);
  const judgingOn = process.argv.find((argument) => argument.startsWith("--judging-on="))?.slice(13) ?? "thread";
  if (compareRev && judgingMethod) throw new Error("--compare and --judging each add a second proxy: use one of them");
  // --other-flags="…": node flags for the --compare / --judging proxy instead of --proxy-flags (e.g. --compare=HEAD
  // with different GC settings on each side)
  const otherFlagsArgument = process.argv.find((argument) => argument.startsWith("--other-flags="))?.slice(14);
  const otherFlags = otherFlagsArgument === undefined ? proxyFlags : otherFlagsArgument.split(" ").filter(Boolean);
  const baseline: { url: string; stop(): Promise<void>; probe?(): Promise<ProxyProbe> } | null = compareRev ? await startRevisionProxy(compareRev, engineUrl, otherFlags) : judgingMethod ? await startJudgingProxy(judgingMethod, judgingOn, engineUrl, otherFlags) : null;
  const otherLabel = compareRev ? `proxy@${compareRev}` : `proxy + ${judgingMethod} judging (${judgingOn === "loop" ? "on its event loop" : "own thread"})`;
  const targets = [{ url: proxyUrl, times: new Map<string, number[]>() }, ...(baseline ? [{ url: baseline.url, times: new Map<string, number[]>() }] : [])];

  // direct bodies: the same prompt sizes, tokenized here once per turn (the engine's work depends on size only)
  const directBodies = new Map<string, string>();
  for (const stream of [false, true]) {
    for (let turn = 1; turn <= TURNS; turn++) {
      const ids = await tokenizer.encode(template.render(messagesFor("direct", turn, CORRECTS), { tools: TOOLS, addGenerationPrompt: true }));
      directBodies.set(`${stream}:${turn}`, JSON.stringify({ input_ids: ids, sampling_params: { max_new_tokens: 64, temperature: 0.6 }, return_logprob: true, stream }));
    }
  }
  const proxyBody = (session: string, turn: number, stream: boolean) =>
    JSON.stringify({ model: "qwen3-4b", messages: messagesFor(session, turn, CORRECTS), tools: TOOLS, tool_choice: "auto", stream, ...(stream ? { stream_options: { include_usage: true } } : {}), max_completion_tokens: 8192 });

  // warm-up: first-ever 48 KB system prompt and the shared assistant segments
  for (const target of targets) {
    await timed(target.url, proxyBody("warm", 1, false), false);
    await timed(target.url, proxyBody("warm", 2, false), false);
  }
  // --compare and --judging: both proxies' CPU per closed turn over the latency runs, side by side
  const judgingFrom = baseline?.probe ? { plain: await probe(), judging: await baseline.probe() } : null;

  const rows: string[] = [];
  const goals: string[] = [];
  // --cpu-only: skip the latency runs (quick CPU-per-turn figures while profiling)
  const cpuOnly = process.argv.includes("--cpu-only");
  const lockstep = process.argv.includes("--lockstep");
  // --only=64:stream (or 1:whole, …): one latency run, for quick comparisons while tuning
  const only = process.argv.find((argument) => argument.startsWith("--only="))?.slice(7);
  for (const concurrency of cpuOnly ? [] : [1, 64]) {
    for (const stream of [false, true]) {
      if (only && only !== `${concurrency}:${stream ? "stream" : "whole"}`) continue;
      const direct: number[] = [];
      const relayed: number[] = [];
      const key = `${concurrency}:${stream}`;
      for (const target of targets) target.times.set(key, []);
      const sessions = concurrency === 1 ? 2 : concurrency;
      let next = 0;
      // Each client sends every turn three ways in turn: direct, through the bare relay, through the proxy (and
      // through the --compare or --judging proxy, the two in alternating order). Clients start spread over one request cycle
      // (those answers), as independent users do; started together, 64 closed-loop clients with a fixed-time
      // engine stay in lockstep and every request lands in a burst of 64 (measured apart: --lockstep).
      const cycleMs = (2 + targets.length) * (ENGINE.prefillMs + ENGINE.tokenMs * replyIds.length);
      let started = 0;
      const worker = async (): Promise<void> => {
        const offset = lockstep ? 0 : (started++ * cycleMs) / concurrency;
        if (offset > 0) await new Promise((resolve) => setTimeout(resolve, offset));
        for (let guard = 0; guard < sessions; guard++) {
          const index = next++;
          if (index >= sessions) return;
          const session = `c${concurrency}-${stream ? "s" : "n"}-${index}`;
          for (let turn = 1; turn <= TURNS; turn++) {
            const directMs = await timed(`${engineUrl}/generate`, directBodies.get(`${stream}:${turn}`)!, stream);
            const relayMs = await timed(`http://127.0.0.1:${relayPort}/generate`, directBodies.get(`${stream}:${turn}`)!, stream);
            const body = proxyBody(session, turn, stream);
            const proxyMs: number[] = [];
            for (const which of turn % 2 === 0 ? targets.keys() : [...targets.keys()].reverse()) proxyMs[which] = await timed(targets[which]!.url, body, stream);
            if (turn > 1) {
              direct.push(directMs);
              relayed.push(relayMs);
              targets.forEach((target, which) => target.times.get(key)!.push(proxyMs[which]!));
            }
          }
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      const what = stream ? "time to first token (stream)" : "whole response (non-stream)";
      const at = (values: number[], fraction: number) => percentile(values, fraction);
      const proxied = targets[0]!.times.get(key)!;
      const [d50, r50, p50, d99, r99, p99] = [at(direct, 0.5), at(relayed, 0.5), at(proxied, 0.5), at(direct, 0.99), at(relayed, 0.99), at(proxied, 0.99)];
      const ms = (value: number) => value.toFixed(2);
      const compared = targets[1]?.times.get(key);
      const extra = compared ? ` ${ms(at(compared, 0.5) - d50)} | ${ms(at(compared, 0.99) - d99)} |` : "";
      rows.push(`| ${what} | ${concurrency} | ${direct.length} | ${ms(d50)} | ${ms(r50 - d50)} | **${ms(p50 - d50)}** | ${ms(d99)} | ${ms(r99 - d99)} | **${ms(p99 - d99)}** |${extra}`);
      if (concurrency === 64) goals.push(`${what} at 64: proxy added p50 ${ms(p50 - d50)} ms (goal ≤ 1; bare relay ${ms(r50 - d50)}), added p99 ${ms(p99 - d99)} ms (goal ≤ 5; bare relay ${ms(r99 - d99)})`);
    }
  }

  // (taken here, before the CPU-per-turn runs, which only the plain proxy serves)
  let judgingLine: string | null = null;
  if (judgingFrom && baseline?.probe) {
    const [plain, judging] = [await probe(), await baseline.probe()];
    const perTurn = (now: ProxyProbe, then: ProxyProbe, key: "cpuMs" | "mainMs") => (now[key] - then[key]) / Math.max(1, now.closed - then.closed);
    const [plainMs, judgingMs] = [perTurn(plain, judgingFrom.plain, "cpuMs"), perTurn(judging, judgingFrom.judging, "cpuMs")];
    const [plainLoop, judgingLoop] = [perTurn(plain, judgingFrom.plain, "mainMs"), perTurn(judging, judgingFrom.judging, "mainMs")];
    judgingLine = compareRev
      ? `\nProxy process CPU per closed turn over the latency runs (all threads): ${plainMs.toFixed(2)} ms this revision, ${judgingMs.toFixed(2)} ms ` +
        `${compareRev} (${(plainMs / judgingMs).toFixed(2)}×); event loop busy per closed turn: ${plainLoop.toFixed(2)} ms this revision, ${judgingLoop.toFixed(2)} ms ${compareRev}.`
      : `\nProxy process CPU per closed turn over the latency runs (all threads): ${plainMs.toFixed(2)} ms without judging, ` +
      `${judgingMs.toFixed(2)} ms with ${judgingMethod} judging (${(judgingMs / plainMs).toFixed(2)}×); the proxy's event loop busy per ` +
      `closed turn: ${plainLoop.toFixed(2)} ms without judging, ${judgingLoop.toFixed(2)} ms with it (judging ${judgingOn === "loop" ? "on that loop" : "on its own thread"}). The judging proxy judged ` +
      `${(judging.judged ?? 0) - (judgingFrom.judging.judged ?? 0)} of the ${judging.closed - judgingFrom.judging.closed} turns it closed and built ${judging.samples - judgingFrom.judging.samples} samples.`;
  }
  const stop = async (): Promise<void> => {
    if (judgingLine) console.log(judgingLine);
    await fetch(`http://127.0.0.1:${probePort}/quit`).catch(() => undefined);
    engine.kill("SIGTERM");
    relayChild.kill("SIGTERM");
    await Promise.allSettled([engine, proxyChild, relayChild]);
    await baseline?.stop();
  };
  const header = `| measure | concurrency | samples | direct p50 | added p50: bare relay | added p50: proxy | direct p99 | added p99: bare relay | added p99: proxy |${baseline ? ` added p50: ${otherLabel} | added p99: ${otherLabel} |` : ""}`;
  const rule = `| --- | --- | --- | --- | --- | --- | --- | --- | --- |${baseline ? " --- | --- |" : ""}`;
  if (only) {
    console.log([header, rule, ...rows, ...goals].join("\n"));
    return stop();
  }

  // capture CPU per turn vs history length: sequential sessions, engine answering at once
  await fetch(`${engineUrl}/bench/delays`, { method: "POST", body: JSON.stringify({ prefillMs: 0, tokenMs: 0 }) });
  const cpuByTurn = new Map<number, number[]>();
  const mainByTurn = new Map<number, number[]>();
  const cpuSessions = 48;
  for (let index = 0; index < cpuSessions; index++) {
    for (let turn = 1; turn <= TURNS; turn++) {
      const body = proxyBody(`cpu-${index}`, turn, true);
      // (the CPU read from here, between the probes: the probes' own work in the proxy is not in the turn's window)
      const before = await probe();
      const cpuBefore = cpuMs(proxyChild.pid!);
      await timed(proxyUrl, body, true);
      const cpuAfter = cpuMs(proxyChild.pid!);
      const after = await probe();
      cpuByTurn.set(turn, [...(cpuByTurn.get(turn) ?? []), cpuAfter - cpuBefore]);
      mainByTurn.set(turn, [...(mainByTurn.get(turn) ?? []), after.mainMs - before.mainMs]);
    }
  }
  const cpuRows: string[] = [];
  const turn2 = percentile(cpuByTurn.get(2)!, 0.5);
  for (const turn of [2, 5, 10, 20, 30]) {
    const cpu = percentile(cpuByTurn.get(turn)!, 0.5);
    cpuRows.push(`| ${turn} | ${2 * turn} | ${cpu.toFixed(2)} | ${(cpu / turn2).toFixed(2)}× | ${percentile(mainByTurn.get(turn)!, 0.5).toFixed(2)} |`);
  }
  const ratio = percentile(cpuByTurn.get(30)!, 0.5) / turn2;
  goals.push(`capture CPU turn 30 / turn 2: ${ratio.toFixed(2)}× (goal ≤ 1.2×)`);

  console.log(`Fake engine: ${ENGINE.prefillMs} ms prefill, ${replyIds.length} tokens at ${ENGINE.tokenMs} ms each. Latency in ms; added = proxy − direct at the same percentile (turn 1 of each session excluded: its history is not cached yet).\n`);
  console.log(header);
  console.log(rule);
  for (const row of rows) console.log(row);
  console.log("\nProxy process CPU per turn (median of " + cpuSessions + " sessions, ms):\n");
  console.log("| turn | messages sent | proxy CPU per turn (ms, all threads) | vs turn 2 | event-loop busy per turn (ms) |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const row of cpuRows) console.log(row);
  console.log("\n" + goals.map((goal) => `- ${goal}`).join("\n"));
  await stop();
}

const role = process.argv.find((argument) => argument.startsWith("--role="))?.slice(7);
if (path.resolve(process.argv[1] ?? "") !== SELF) {
  // imported by another bench for its shared material: run nothing
} else if (role === "engine") await runEngine(JSON.parse(process.argv.find((argument) => argument.startsWith("--reply="))!.slice(8)) as number[], process.argv.includes("--cumulative"));
else if (role === "proxy") {
  const option = (name: string) => process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3);
  const judgeUrl = option("judge");
  await runProxy(option("engine")!, judgeUrl ? { method: option("judging") ?? "binary", judgeUrl, on: option("judging-on") === "loop" ? "loop" : "thread" } : undefined);
}
else if (role === "relay") await runRelay(process.argv.find((argument) => argument.startsWith("--engine="))!.slice(9));
else await main();
