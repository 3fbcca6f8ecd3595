// Which model family a checkpoint belongs to, from its chat template's markup (what the model writes for reasoning
// and tool calls) and config.json's architectures, or the recipe's model.family; per family, SGLang's parser names
// and whether this project's own parsers (tokens mode) read its markup. Ignores rendering and tokenizing.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ModelFamilyName } from "../../contracts/recipe.ts";
import { resolveTokenizerFolder } from "./model-files.ts";

export interface ModelFamily {
  name: ModelFamilyName;
  /** What its tool calls look like in the model's output (for messages). */
  toolCallMarkup: string;
  /** Strings its chat template holds (all of them): the first family whose markers all appear is the template's. */
  templateMarkers: readonly string[];
  /** config.json `architectures` entries of the family's checkpoints (evidence when the template says nothing). */
  architectures: RegExp;
  /** SGLang's --tool-call-parser and --reasoning-parser names (tests/fixtures/sglang-parsers.json holds both lists). */
  sglang: { toolCallParser: string; reasoningParser: string | null };
  /** This project's incremental parsers read its reasoning and tool calls (tokens mode). */
  parsedHere: boolean;
}

/** In the order they are tried: more specific markup first (Qwen3-Coder/3.5 templates also hold <tool_call>). */
export const FAMILIES: readonly ModelFamily[] = [
  { name: "gpt-oss", toolCallMarkup: "<|channel|>commentary to=functions.NAME … <|call|> (harmony)", templateMarkers: ["<|channel|>"], architectures: /^GptOss/, sglang: { toolCallParser: "gpt-oss", reasoningParser: "gpt-oss" }, parsedHere: false },
  { name: "deepseek-v3", toolCallMarkup: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>…", templateMarkers: ["<｜tool▁calls▁begin｜>"], architectures: /^DeepseekV3/, sglang: { toolCallParser: "deepseekv3", reasoningParser: "deepseek-r1" }, parsedHere: false },
  { name: "glm-4.5", toolCallMarkup: "<tool_call>NAME<arg_key>…</arg_key><arg_value>…</arg_value></tool_call>", templateMarkers: ["<arg_key>"], architectures: /^Glm4Moe/, sglang: { toolCallParser: "glm45", reasoningParser: "glm45" }, parsedHere: false },
  { name: "qwen3-coder", toolCallMarkup: "<tool_call><function=NAME><parameter=…>…</tool_call>", templateMarkers: ["<tool_call>", "<function="], architectures: /^Qwen3(_?5|Next)/, sglang: { toolCallParser: "qwen3_coder", reasoningParser: "qwen3" }, parsedHere: false },
  { name: "llama3", toolCallMarkup: '{"name": …, "parameters": …} or <|python_tag|>', templateMarkers: ["<|start_header_id|>"], architectures: /^Llama/, sglang: { toolCallParser: "llama3", reasoningParser: null }, parsedHere: false },
  { name: "qwen3", toolCallMarkup: '<tool_call>{"name": …, "arguments": …}</tool_call>', templateMarkers: ["<tool_call>", "<|im_start|>"], architectures: /^Qwen(2|3)/, sglang: { toolCallParser: "qwen", reasoningParser: "qwen3" }, parsedHere: true },
];

export interface FamilyVerdict {
  family: ModelFamily | null;
  /** Where it comes from, in words: the recipe, the template's markup or config.json. */
  evidence: string;
}

/** The family of a chat template and config.json architectures; `named` (model.family other than auto) wins. */
export function familyOf(input: { chatTemplate: string | null; architectures: readonly string[]; named?: ModelFamilyName | "auto" }): FamilyVerdict {
  if (input.named && input.named !== "auto") return { family: FAMILIES.find((family) => family.name === input.named)!, evidence: `model.family is ${input.named}` };
  const template = input.chatTemplate ?? "";
  const byTemplate = FAMILIES.find((family) => family.templateMarkers.every((marker) => template.includes(marker)));
  if (byTemplate) return { family: byTemplate, evidence: `its chat template writes ${byTemplate.templateMarkers.join(" and ")}` };
  const architecture = input.architectures.find((name) => FAMILIES.some((family) => family.architectures.test(name)));
  const byArchitecture = architecture ? FAMILIES.find((family) => family.architectures.test(architecture))! : null;
  if (byArchitecture) return { family: byArchitecture, evidence: `config.json architectures has ${architecture}` };
  return { family: null, evidence: input.architectures.length > 0 ? `neither its chat template nor config.json architectures (${input.architectures.join(", ")}) is a family this project knows` : "its chat template is not one this project knows, and there is no config.json" };
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

/** The chat template of tokenizer_config.json as one string (a list of named templates: the default one), or null. */
export function templateSource(tokenizerConfig: Record<string, unknown>): string | null {
  const template = tokenizerConfig.chat_template;
  if (typeof template === "string") return template;
  if (Array.isArray(template)) {
    const entry = (template as { name?: unknown; template?: unknown }[]).find((item) => item.name === "default") ?? template[0];
    return typeof entry?.template === "string" ? entry.template : null;
  }
  return null;
}

