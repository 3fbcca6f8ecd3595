// Which model family a checkpoint belongs to, from its chat template's markup (what the model writes for reasoning
// and tool calls) and config.json's architectures, or the recipe's model.family; per family, SGLang's parser names
// (the proxy maps them to its own parsers: lib/model/parsers/tool-formats/). Ignores rendering and tokenizing.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ModelFamilyName, Recipe } from "../../contracts/recipe.ts";
import { chatTemplateText, readChatTemplateFile, resolveTokenizerFolder } from "./model-files.ts";
import { policyTokenizerSource } from "./tokenizer-sources.ts";

export interface SglangParsers {
  toolCallParser: string;
  reasoningParser: string | null;
}

export interface ModelFamily {
  name: ModelFamilyName;
  /** What its tool calls look like in the model's output (for messages). */
  toolCallMarkup: string;
  /** Strings its chat template holds (all of them): the first family whose markers all appear is the template's. */
  templateMarkers: readonly string[];
  /** config.json `architectures` entries of the family's checkpoints (evidence when the template says nothing). */
  architectures: RegExp;
  /** SGLang's --tool-call-parser and --reasoning-parser names (tests/fixtures/sglang-parsers.json holds both lists). */
  sglang: SglangParsers;
  /** Names that depend on the checkpoint's chat template (a family whose versions write different markup). */
  sglangFor?(template: string): SglangParsers;
}

/** Qwen3's parser names: for the qwen3 family, and for a checkpoint whose family is unknown. */
const QWEN3_PARSERS: SglangParsers = { toolCallParser: "qwen", reasoningParser: "qwen3" };

/** In the order they are tried: more specific markup first (Qwen3-Coder/3.5 templates also hold <tool_call>). */
export const FAMILIES: readonly ModelFamily[] = [
  { name: "gpt-oss", toolCallMarkup: "<|channel|>commentary to=functions.NAME … <|call|> (harmony)", templateMarkers: ["<|channel|>"], architectures: /^GptOss/, sglang: { toolCallParser: "gpt-oss", reasoningParser: "gpt-oss" } },
  {
    name: "deepseek-v3",
    toolCallMarkup: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>…",
    templateMarkers: ["<｜tool▁calls▁begin｜>"],
    architectures: /^DeepseekV3/,
    sglang: { toolCallParser: "deepseekv3", reasoningParser: null },
    // V3 and R1 write a call's arguments in a ```json block, V3.1 bare; R1 and V3.1 think (V3.1 only when asked)
    sglangFor: (template) => ({
      toolCallParser: template.includes("```json") ? "deepseekv3" : "deepseekv31",
      reasoningParser: !template.includes("<think>") ? null : template.includes("```json") ? "deepseek-r1" : "deepseek-v3",
    }),
  },
  { name: "glm-4.5", toolCallMarkup: "<tool_call>NAME<arg_key>…</arg_key><arg_value>…</arg_value></tool_call>", templateMarkers: ["<arg_key>"], architectures: /^Glm4Moe/, sglang: { toolCallParser: "glm45", reasoningParser: "glm45" } },
  { name: "qwen3-coder", toolCallMarkup: "<tool_call><function=NAME><parameter=…>…</tool_call>", templateMarkers: ["<tool_call>", "<function="], architectures: /^Qwen3(_?5|Next)/, sglang: { toolCallParser: "qwen3_coder", reasoningParser: "qwen3" } },
  { name: "llama3", toolCallMarkup: '{"name": …, "parameters": …} or <|python_tag|>', templateMarkers: ["<|start_header_id|>"], architectures: /^Llama/, sglang: { toolCallParser: "llama3", reasoningParser: null } },
  {
    name: "qwen3",
    toolCallMarkup: '<tool_call>{"name": …, "arguments": …}</tool_call>',
    templateMarkers: ["<tool_call>", "<|im_start|>"],
    architectures: /^Qwen(2|3)/,
    sglang: QWEN3_PARSERS,
    // what the generation prompt does with <think>: Qwen3 (hybrid) may close it, the 2507 Thinking checkpoints open it
    // (the output starts inside the reasoning: qwen3-thinking), the 2507 Instruct ones and Qwen2.5 write none
    sglangFor: (template) => ({ toolCallParser: "qwen", reasoningParser: qwenReasoningParser(generationPromptOf(template)) }),
  },
];

/** The template's text after its last `add_generation_prompt` test: what it writes to open the model's turn. */
function generationPromptOf(template: string): string {
  const at = template.lastIndexOf("add_generation_prompt");
  return at < 0 ? "" : template.slice(at);
}

function qwenReasoningParser(generationPrompt: string): string | null {
  if (!generationPrompt.includes("<think>")) return null;
  return generationPrompt.includes("</think>") ? "qwen3" : "qwen3-thinking";
}

export interface FamilyVerdict {
  family: ModelFamily | null;
  /** The family's SGLang parser names for this checkpoint (Qwen3's when the family is unknown). */
  sglang: SglangParsers;
  /** Where it comes from, in words: the recipe, the template's markup or config.json. */
  evidence: string;
}

/** The family of a chat template and config.json architectures; `named` (model.family other than auto) wins. */
export function familyOf(input: { chatTemplate: string | null; architectures: readonly string[]; named?: ModelFamilyName | "auto" }): FamilyVerdict {
  const template = input.chatTemplate ?? "";
  const verdict = (family: ModelFamily | null, evidence: string): FamilyVerdict => ({ family, evidence, sglang: family ? ((template && family.sglangFor?.(template)) || family.sglang) : QWEN3_PARSERS });
  if (input.named && input.named !== "auto") return verdict(FAMILIES.find((family) => family.name === input.named)!, `model.family is ${input.named}`);
  const byTemplate = FAMILIES.find((family) => family.templateMarkers.every((marker) => template.includes(marker)));
  if (byTemplate) return verdict(byTemplate, `its chat template writes ${byTemplate.templateMarkers.join(" and ")}`);
  const architecture = input.architectures.find((name) => FAMILIES.some((family) => family.architectures.test(name)));
  const byArchitecture = architecture ? FAMILIES.find((family) => family.architectures.test(architecture))! : null;
  if (byArchitecture) return verdict(byArchitecture, `config.json architectures has ${architecture}`);
  return verdict(null, input.architectures.length > 0 ? `neither its chat template nor config.json architectures (${input.architectures.join(", ")}) is a family this project knows` : "its chat template is not one this project knows, and there is no config.json");
}

/** config.json `architectures` of a checkpoint folder ([] when there is none, as for builtin:qwen3). */
export async function readArchitectures(source: string): Promise<string[]> {
  try {
    const config = JSON.parse(await readFile(path.join(resolveTokenizerFolder(source), "config.json"), "utf8")) as { architectures?: unknown };
    return Array.isArray(config.architectures) ? config.architectures.filter((name): name is string => typeof name === "string") : [];
  } catch {
    return [];
  }
}

/**
 * The policy's family: its chat template (chat_template.jinja, else tokenizer_config.json's) and the architectures
 * in config.json of model.path and of the tokenizer folder, or model.family. No template when neither can be read
 * (the tokenizer check says why).
 */
export async function resolveFamily(recipe: Recipe): Promise<FamilyVerdict & { templateRead: boolean }> {
  const tokenizer = policyTokenizerSource(recipe);
  let chatTemplate: string | null = null;
  let templateRead = false;
  try {
    const folder = resolveTokenizerFolder(tokenizer.path);
    chatTemplate = (await readChatTemplateFile(folder)) ?? chatTemplateText((JSON.parse(await readFile(path.join(folder, "tokenizer_config.json"), "utf8")) as { chat_template?: unknown }).chat_template);
    templateRead = true;
  } catch {
    // unreadable: detection falls back to config.json
  }
  const architectures = [...new Set([...(await readArchitectures(recipe.model.path)), ...(await readArchitectures(tokenizer.path))])];
  const verdict = familyOf({ chatTemplate, architectures, named: recipe.model.family });
  if (!verdict.family && !templateRead && architectures.length === 0) verdict.evidence = `${tokenizer.key} (${tokenizer.path}) has no readable tokenizer_config.json or config.json here`;
  return { ...verdict, templateRead };
}

/**
 * SGLang's --tool-call-parser and --reasoning-parser names the recipe asks for, with the family's names for this
 * checkpoint (FamilyVerdict.sglang; Qwen3's when there is none): `auto` is the family's, qwen25 / qwen3 force
 * Qwen's, none is none (null).
 */
export function parserNames(model: Recipe["model"], family: SglangParsers | null): { toolCallParser: string | null; reasoningParser: string | null } {
  const own = family ?? QWEN3_PARSERS;
  return {
    toolCallParser: model.tool_call_parser === "none" ? null : model.tool_call_parser === "qwen25" ? "qwen" : own.toolCallParser,
    reasoningParser: model.reasoning_parser === "none" ? null : model.reasoning_parser === "qwen3" ? "qwen3" : own.reasoningParser,
  };
}
