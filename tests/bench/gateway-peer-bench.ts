// The proxy beside a plain gateway: Portkey's AI gateway (@portkey-ai/gateway, TypeScript, Hono) relaying OpenAI chat
// completions to the same fake engine (proxy-bench.ts's, with the same timing), with the same OpenClaw-sized traffic
// (48 KB system prompt, 12 tools), measured side by side in one run: for a new session on every request and for
// continuing sessions; added latency at concurrency 1, throughput at 64, CPU per request of each process. Ratios only.
// `--compare=<git revision>` adds the proxy at that revision (a worktree sharing node_modules) as a third column of
// the same run: before and after a change, each against Portkey.
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { messagesFor, REPLY, tools } from "./openclaw-traffic.ts";
import { cpuMs } from "./process-cpu.ts";
import { percentile } from "./proxy-bench.ts";
import { firstLine, startRevisionProxy } from "./proxy-children.ts";
import { timedRequest } from "./timed-request.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "../..");
const PROXY_BENCH = path.join(HERE, "proxy-bench.ts");
const REQUESTS_AT_ONE = 100;
/** Requests at concurrency 64 per target and traffic style, in two rounds (fewer for a path the engine's prompt work bounds). */
const REQUESTS_AT_64 = 1280;
/** Requests at 64 each target serves first, not measured: the code paths of 64 interleaved streams compiled and the heap grown. */
const WARM_UP_AT_64 = 256;
const TOOLS = tools();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Time to the first content delta of a streamed answer (ms). */
function firstToken(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return timedRequest(url, body, (part) => /"content":\s?"S/.test(part), headers);
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  pid: number;
  /** The direct request its own cost is measured against: the same engine endpoint it reaches, or (the proxy) the free one. */
  direct: "sglang" | "free";
  /** Requests at concurrency 64 (REQUESTS_AT_64, or fewer where the engine's own prompt work bounds the path). */
  at64: number;
}

const body = (session: string, turn: number) => JSON.stringify({ model: "qwen3-4b", messages: messagesFor(session, turn), tools: TOOLS, tool_choice: "auto", stream: true, max_completion_tokens: 8192 });

/** The request sequence of one traffic style: a new session each time, or sessions that go on (turns 2..9 of each). */
function requestOf(style: "new" | "continuing", client: number, index: number): string {
  return style === "new" ? body(`new-${client}-${index}-${Math.random().toString(36).slice(2)}`, 1) : body(`cont-${client}`, 2 + (index % 8));
}

async function main(): Promise<void> {
  const files = await loadTokenizerFiles("builtin:qwen3");
  const tokenizer = new ModelTokenizer(files);
  const replyIds = [...(await tokenizer.encode(REPLY)), tokenizer.tokenId("<|im_end|>")!];
  const children: ResultPromise[] = [];
  const compareRev = process.argv.find((argument) => argument.startsWith("--compare="))?.slice(10);
  let revision: Awaited<ReturnType<typeof startRevisionProxy>> | null = null;
  try {
    const engine = execa(process.execPath, ["--import", "tsx", PROXY_BENCH, "--role=engine", `--reply=${JSON.stringify(replyIds)}`], { reject: false });
    children.push(engine);
    const engineUrl = `http://127.0.0.1:${(await firstLine(engine)).port}`;
    const proxy = execa(process.execPath, ["--import", "tsx", PROXY_BENCH, "--role=proxy", `--engine=${engineUrl}`], { reject: false });
    children.push(proxy);
    const proxyPort = (await firstLine(proxy)).port;
    const portkeyPort = await freePort();
    const portkey = execa(process.execPath, ["--import", path.join(HERE, "mutable-fetch.mjs"), path.join(ROOT, "node_modules/@portkey-ai/gateway/build/start-server.js"), `--port=${portkeyPort}`, "--headless"], { reject: false, env: { NODE_ENV: "production" } });
    children.push(portkey);
    await new Promise<void>((resolve, reject) => {
      let seen = "";
      portkey.stdout?.on("data", (data: Buffer) => {
        seen += data.toString();
        if (seen.includes("Ready for connections")) resolve();
      });
      void portkey.then((result) => reject(new Error(`Portkey's gateway exited: ${String(result.stderr).slice(-500)}`)));
    });
    const portkeyTo = (base: string) => ({ "x-portkey-provider": "openai", "x-portkey-custom-host": base, authorization: "Bearer bench" });
    const portkeyUrl = `http://127.0.0.1:${portkeyPort}/v1/chat/completions`;
    const PROXY = "openclaw-rl proxy (tokens mode: render, tokenize, /generate, parse, capture)";
    const PORTKEY = "Portkey AI gateway 1.15.2 → the engine's chat completions (SGLang's prompt work)";
    const PORTKEY_FREE = "Portkey AI gateway 1.15.2 → a free chat endpoint (no prompt work)";
    const targets: Target[] = [
      { name: PROXY, url: `http://127.0.0.1:${proxyPort}/v1/chat/completions`, headers: {}, pid: proxy.pid!, direct: "free", at64: REQUESTS_AT_64 },
      // (the engine's own rendering and encoding bound this path at about 40 requests/s: a quarter as many)
      { name: PORTKEY, url: portkeyUrl, headers: portkeyTo(`${engineUrl}/v1`), pid: portkey.pid!, direct: "sglang", at64: REQUESTS_AT_64 / 4 },
      { name: PORTKEY_FREE, url: portkeyUrl, headers: portkeyTo(`${engineUrl}/free/v1`), pid: portkey.pid!, direct: "free", at64: REQUESTS_AT_64 },
    ];
    if (compareRev) {
      revision = await startRevisionProxy(compareRev, engineUrl, []);
      targets.push({ name: `openclaw-rl proxy at ${compareRev}`, url: revision.url, headers: {}, pid: revision.pid, direct: "free", at64: REQUESTS_AT_64 });
    }
    const directs = { sglang: `${engineUrl}/v1/chat/completions`, free: `${engineUrl}/free/v1/chat/completions` };
    // warm-up: the 48 KB system prompt once through each
    for (const target of targets) await firstToken(target.url, requestOf("continuing", 999, 0), target.headers);

    const rows: string[] = [];
    const ratios: string[] = [];
    for (const style of ["new", "continuing"] as const) {
      const label = style === "new" ? "new session every request" : "continuing sessions";
      // concurrency 1: both direct requests, then every target, in alternating order, for each request
      const ttft = new Map<string, number[]>([...targets.map((target) => [target.name, []] as [string, number[]]), ["direct:sglang", []], ["direct:free", []]]);
      /** A sum per target, from 0. */
      const perTarget = () => new Map<string, number>(targets.map((target) => [target.name, 0]));
      const add = (sums: Map<string, number>, name: string, value: number) => sums.set(name, sums.get(name)! + value);
      /**
       * Each gateway process's CPU over the whole phase, per request it served: what a request's own window would
       * miss is counted too (the proxy writes its turn records up to 20 ms after the answer, in another target's
       * window). Both Portkey rows are one process: its figure is the mean over both.
       */
      const pids = [...new Set(targets.map((target) => target.pid))];
      const phaseStart = new Map(pids.map((pid) => [pid, cpuMs(pid)]));
      /** The fake engine's CPU while each target's request ran: what the path asked of the engine (/generate or chat). */
      const engineCpu = perTarget();
      for (let index = 0; index < REQUESTS_AT_ONE; index++) {
        const request = requestOf(style, 0, index);
        for (const kind of index % 2 === 0 ? (["sglang", "free"] as const) : (["free", "sglang"] as const)) ttft.get(`direct:${kind}`)!.push(await firstToken(directs[kind], request, {}));
        for (const target of index % 2 === 0 ? targets : [...targets].reverse()) {
          const engineBefore = cpuMs(engine.pid!);
          ttft.get(target.name)!.push(await firstToken(target.url, request, target.headers));
          add(engineCpu, target.name, cpuMs(engine.pid!) - engineBefore);
        }
      }
      const cpu = new Map(
        targets.map((target) => {
          const served = targets.filter((other) => other.pid === target.pid).length * REQUESTS_AT_ONE;
          return [target.name, (cpuMs(target.pid) - phaseStart.get(target.pid)!) / served] as [string, number];
        }),
      );
      // concurrency 1 again, each gateway alone (as it is deployed: no other gateway's requests between its own), in
      // two blocks, the second in reverse order; each request follows the same request straight to the free endpoint
      // (its own added cost); CPU per request over each block
      const aloneTargets = targets.filter((target) => target.direct === "free");
      const alone = new Map(aloneTargets.map((target) => [target.name, { added: [] as number[], cpu: 0 }]));
      for (const [round, block] of [aloneTargets, [...aloneTargets].reverse()].entries()) {
        for (const target of block) {
          const entry = alone.get(target.name)!;
          const before = cpuMs(target.pid);
          for (let index = 0; index < REQUESTS_AT_ONE / 2; index++) {
            const request = requestOf(style, 1, round * REQUESTS_AT_ONE + index);
            const direct = await firstToken(directs.free, request, {});
            entry.added.push((await firstToken(target.url, request, target.headers)) - direct);
          }
          entry.cpu += cpuMs(target.pid) - before;
        }
      }

      // concurrency 64: each target alone, 64 closed-loop clients; a warm-up not measured, then two rounds of half the
      // requests, the second in the reverse order (the machine's drift over the minutes this takes then weighs on
      // every target alike)
      const elapsed = perTarget();
      const cpuAt64 = perTarget();
      const engineCpuAt64 = perTarget();
      let failed = 0;
      const at64 = async (target: Target, requests: number): Promise<void> => {
        let next = 0;
        const client = async (id: number): Promise<void> => {
          while (next < requests) {
            await firstToken(target.url, requestOf(style, id, next++), target.headers).catch(() => {
              failed++;
            });
          }
        };
        await Promise.all(Array.from({ length: 64 }, (_, id) => client(id)));
      };
      for (const target of targets) await at64(target, Math.min(WARM_UP_AT_64, target.at64 / 2));
      for (const round of [targets, [...targets].reverse()]) {
        for (const target of round) {
          const before = cpuMs(target.pid);
          const engineBefore = cpuMs(engine.pid!);
          const started = performance.now();
          await at64(target, target.at64 / 2);
          add(elapsed, target.name, performance.now() - started);
          add(cpuAt64, target.name, cpuMs(target.pid) - before);
          add(engineCpuAt64, target.name, cpuMs(engine.pid!) - engineBefore);
        }
      }
      if (failed > 0) throw new Error(`${failed} requests failed at concurrency 64 (${label}): the throughput would count them`);
      const throughput = new Map<string, number>(targets.map((target) => [target.name, target.at64 / (elapsed.get(target.name)! / 1000)]));
      const p50 = (name: string) => percentile(ttft.get(name)!, 0.5);
      const aloneCell = (name: string) => {
        const entry = alone.get(name);
        return entry ? `${percentile(entry.added, 0.5).toFixed(2)} / ${percentile(entry.added, 0.9).toFixed(2)} / ${(entry.cpu / REQUESTS_AT_ONE).toFixed(2)}` : "–";
      };
      /** Added at p50 and p90: the target's time to the first token minus the direct one of the same request. */
      const added = (name: string, direct: "sglang" | "free", at: number) => percentile(ttft.get(name)!.map((ms, index) => ms - ttft.get(`direct:${direct}`)![index]!), at);
      rows.push(`| ${label} | direct: the engine's chat completions (SGLang's prompt work) | ${p50("direct:sglang").toFixed(2)} | – | – | – | – | – | – | – |`);
      rows.push(`| ${label} | direct: a free chat endpoint | ${p50("direct:free").toFixed(2)} | – | – | – | – | – | – | – |`);
      for (const target of targets) {
        const vsEngine = target.name === PORTKEY_FREE ? "–" : added(target.name, "sglang", 0.5).toFixed(2);
        const own = target.direct === "free" ? `${added(target.name, "free", 0.5).toFixed(2)} / ${added(target.name, "free", 0.9).toFixed(2)}` : "–";
        rows.push(`| ${label} | ${target.name} | ${p50(target.name).toFixed(2)} | ${vsEngine} | ${own} | ${cpu.get(target.name)!.toFixed(2)} | ${(engineCpu.get(target.name)! / REQUESTS_AT_ONE).toFixed(2)} | ${aloneCell(target.name)} | ${throughput.get(target.name)!.toFixed(1)} | ${(cpuAt64.get(target.name)! / target.at64).toFixed(2)} / ${(engineCpuAt64.get(target.name)! / target.at64).toFixed(2)} |`);
      }
      const ratio = (a: number, b: number) => (a / b).toFixed(2);
      const aloneRatio = (ours: string) => {
        const [mine, theirs] = [alone.get(ours)!, alone.get(PORTKEY_FREE)!];
        return `${ratio(percentile(mine.added, 0.5), percentile(theirs.added, 0.5))}× / ${ratio(mine.cpu, theirs.cpu)}×`;
      };
      for (const [who, ours] of [["proxy", PROXY], ...(compareRev ? [[`proxy at ${compareRev}`, targets[3]!.name]] : [])] as [string, string][]) {
        ratios.push(
          `| ${label} | ${who} | ${ratio(p50(ours), p50(PORTKEY))}× | ${ratio(added(ours, "free", 0.5), added(PORTKEY_FREE, "free", 0.5))}× / ${ratio(added(ours, "free", 0.9), added(PORTKEY_FREE, "free", 0.9))}× | ${ratio(cpu.get(ours)!, cpu.get(PORTKEY_FREE)!)}× | ${aloneRatio(ours)} | ${ratio(throughput.get(ours)!, throughput.get(PORTKEY_FREE)!)}× | ${ratio(cpuAt64.get(ours)!, cpuAt64.get(PORTKEY_FREE)!)}× |`,
        );
      }
    }
    console.log(
      `Same fake engine, same OpenClaw-sized requests (48 KB system prompt, 12 tools, streamed), one run, ${REQUESTS_AT_ONE} requests at concurrency 1 per traffic style. ` +
        "Times to the first content token (ms, p50) at concurrency 1. The engine's chat completions first do what SGLang's serving_chat does with every request (jinja render, whole-prompt encode with Hugging Face's tokenizers); " +
        "the proxy sends /generate with the ids it built (cached), which skips that. Added = through the path minus direct, request by request: against the engine's chat completions (what a user of the gateway saves or pays), " +
        `and against the free chat endpoint (the path's own cost, p50 / p90). CPU per request of the gateway's process at concurrency 1: its CPU over the whole phase (/proc schedstat, all threads) per request it served, work done after an answer included (both Portkey rows are one process: the mean over both). The engine's CPU per request: the fake engine's process while that path's request ran (what the path asks of the engine). Throughput: 64 closed-loop clients against each alone, after a warm-up of ${WARM_UP_AT_64} requests, in two rounds (the second in reverse order), ${REQUESTS_AT_64} requests in all (a quarter as many to the engine's chat completions), with each process's CPU per request over them. Alone at concurrency 1: each gateway with no other gateway's requests between its own (as deployed), in two blocks of ${REQUESTS_AT_ONE / 2} (the second round in reverse order), each request after the same one straight to the free endpoint: own added p50 / p90 and CPU per request.\n`,
    );
    console.log("| traffic | path | first token p50 (ms) | added p50 vs the engine's chat completions (ms) | added vs a free endpoint, p50 / p90 (ms) | CPU per request (ms) | the engine's CPU per request (ms) | alone at 1: own added p50 / p90, CPU per request (ms) | requests/s at 64 | at 64, CPU per request: the path / the engine (ms) |");
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const row of rows) console.log(row);
    console.log("\nRatios, proxy / Portkey, in this run:\n");
    console.log("| traffic | proxy | first token p50 (both to the engine's chat work: SGLang's path for Portkey, /generate for the proxy) | own added cost p50 / p90 (free endpoint) | CPU per request | alone at 1: own added p50 / CPU per request | requests/s at 64 (free endpoint) | CPU per request at 64 (free endpoint) |");
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const row of ratios) console.log(row);
  } finally {
    await revision?.stop();
    for (const child of children) child.kill("SIGTERM");
    await Promise.allSettled(children);
  }
}

await main();
