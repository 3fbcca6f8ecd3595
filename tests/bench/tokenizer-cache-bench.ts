// Whether the caching on top of Hugging Face's tokenizers pays: CPU (all threads: the library encodes on libuv's
// pool) and wall time per prompt for continuing OpenClaw sessions (48 KB system prompt, 12 tools, growing history),
// encoded by the library whole, through the segment cache, and through the segment cache with the session memo.
// Same prompts, the three variants interleaved, one run. Ratios only.
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { hfTokenizer } from "../lib/hf-tokenizer.ts";
import { messagesFor, tools } from "./openclaw-traffic.ts";
import { percentile } from "./proxy-bench.ts";

const SESSIONS = 8;
const TURNS = 12;
const ROUNDS = 5;

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

async function main(): Promise<void> {
  const files = await loadTokenizerFiles("builtin:qwen3");
  const template = new ChatTemplate(files);
  const toolList = tools();
  // the traffic: sessions interleaved, each turn's prompt one message pair longer than the last
  const prompts: { session: string; text: string }[] = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    for (let session = 0; session < SESSIONS; session++) {
      prompts.push({ session: `s${session}`, text: template.render(messagesFor(`s${session}`, turn), { tools: toolList, addGenerationPrompt: true }) });
    }
  }
  const library = hfTokenizer(files.tokenizerJson);
  const variants: { name: string; make(): (prompt: { session: string; text: string }) => Promise<number> }[] = [
    { name: "the library, whole prompt", make: () => async (prompt) => (await library.encode(prompt.text)).length },
    {
      name: "segment cache",
      make: () => {
        const tokenizer = new ModelTokenizer(files);
        return async (prompt) => (await tokenizer.encodePrompt(prompt.text)).ids.length;
      },
    },
    {
      name: "segment cache + session memo",
      make: () => {
        const tokenizer = new ModelTokenizer(files);
        return async (prompt) => (await tokenizer.encodePrompt(prompt.text, prompt.session)).ids.length;
      },
    },
  ];
  const cpu = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  const wall = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  let lengths: number | null = null;
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
      const encode = variant.make();
      let total = 0;
      const cpuBefore = cpuMs();
      const started = performance.now();
      for (const prompt of prompts) total += await encode(prompt);
      wall.get(variant.name)!.push((performance.now() - started) / prompts.length);
      cpu.get(variant.name)!.push((cpuMs() - cpuBefore) / prompts.length);
      if (lengths !== null && total !== lengths) throw new Error(`${variant.name} gave ${total} ids in all, not ${lengths}`);
      lengths = total;
    }
  }
  const base = variants[0]!.name;
  console.log(`${SESSIONS} sessions × ${TURNS} turns of OpenClaw-sized prompts (48 KB system prompt, 12 tools; ${Math.round(prompts.at(-1)!.text.length / 1000)} KB at the last turn), ${ROUNDS} rounds, medians; each variant starts with an empty cache, so the first turn of each session pays in full.\n`);
  console.log("| encoding | CPU per prompt vs the library whole | wall per prompt vs the library whole |");
  console.log("| --- | --- | --- |");
  for (const variant of variants) {
    console.log(`| ${variant.name} | ${(percentile(cpu.get(variant.name)!, 0.5) / percentile(cpu.get(base)!, 0.5)).toFixed(3)}× | ${(percentile(wall.get(variant.name)!, 0.5) / percentile(wall.get(base)!, 0.5)).toFixed(3)}× |`);
  }
}

await main();
