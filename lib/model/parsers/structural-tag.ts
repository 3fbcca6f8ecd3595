// The structural tag upstream's SGLang constrains tool_choice "required" / a named function with, per tool-call
// parser: xgrammar's model-native tag (qwen3_coder, gpt-oss) or SGLang's legacy tag from the detector's structure_info
// (qwen, llama3, deepseekv3/v31); where each is built: tests/fixtures/sglang-parsers/citations.json. Ignores json_schema.
import type { Tool } from "../../../contracts/chat.ts";

/** A detector's begin/end/trigger for one tool (its structure_info). */
interface StructureInfo {
  begin: string;
  end: string;
  trigger: string;
}

/** structure_info per --tool-call-parser name. */
const LEGACY_STRUCTURES: Record<string, (name: string) => StructureInfo> = {
  qwen: (name) => ({ begin: `<tool_call>\n{"name":"${name}", "arguments":`, end: "}\n</tool_call>", trigger: "<tool_call>" }),
  llama3: (name) => ({ begin: `<|python_tag|>{"name":"${name}", "arguments":`, end: "}", trigger: "<|python_tag|>" }),
  deepseekv3: (name) => ({ begin: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n`, end: "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", trigger: "<｜tool▁calls▁begin｜>" }),
  deepseekv31: (name) => ({ begin: `<｜tool▁call▁begin｜>${name}<｜tool▁sep｜>`, end: "<｜tool▁call▁end｜>", trigger: "<｜tool▁call▁begin｜>" }),
};
LEGACY_STRUCTURES.qwen25 = LEGACY_STRUCTURES.qwen!;

/** The xgrammar model name a detector's get_structural_tag_name gives. */
const NATIVE_MODELS: Record<string, "qwen_3_coder" | "harmony"> = { qwen3_coder: "qwen_3_coder", "gpt-oss": "harmony" };

/** Which structural tag upstream constrains this parser's required/named calls with (null: none, json_schema follows). */
export function structuralTagKind(toolCallParser: string | null): "native" | "legacy" | null {
  if (toolCallParser === null) return null;
  return toolCallParser in NATIVE_MODELS ? "native" : toolCallParser in LEGACY_STRUCTURES ? "legacy" : null;
}

/**
 * Whether "required" / a named function is constrained by a structural tag, so the output is in the family's own
 * markup: under upstream for parsers whose detector has one (all but glm45); never under fork (json_schema only).
 */
export function constrainsNatively(toolCallParser: string | null, flavor: "fork" | "upstream"): boolean {
  return flavor === "upstream" && structuralTagKind(toolCallParser) !== null;
}

/** The tool's `strict` (SGLang's Function.strict, default false; SGLANG_TOOL_STRICT_LEVEL is left at OFF). */
function isStrict(tool: Tool): boolean {
  return (tool.function as { strict?: unknown }).strict === true;
}

/** SGLang's legacy structural tag: every offered tool (a named choice too), its parameters only when it is strict, at least one. */
function legacyStructuralTag(tools: readonly Tool[], structure: (name: string) => StructureInfo): Record<string, unknown> {
  const triggers = new Set<string>();
  const structures = tools.map((tool) => {
    const info = structure(tool.function.name);
    triggers.add(info.trigger);
    const parameters = isStrict(tool) ? tool.function.parameters : null;
    return { begin: info.begin, schema: parameters ? parameters : {}, end: info.end };
  });
  return { type: "structural_tag", structures, triggers: [...triggers], at_least_one: true };
}

/** xgrammar's argument schema: `true` unless the tool is strict. */
function argumentSchema(tool: Tool): unknown {
  if (!isStrict(tool) || tool.function.parameters === undefined || tool.function.parameters === null) return true;
  return tool.function.parameters;
}

/** xgrammar's TagFormat of one call, as pydantic dumps it. */
function tag(begin: string, content: Record<string, unknown>, end: string | string[]): Record<string, unknown> {
  return { type: "tag", begin, content, end };
}

function tagsWithSeparator(tags: Record<string, unknown>[], separator: string, atLeastOne: boolean): Record<string, unknown> {
  return { type: "tags_with_separator", tags, separator, at_least_one: atLeastOne, stop_after_first: false };
}

/**
 * xgrammar's get_model_structural_tag with reasoning off (SGLang passes thinking_mode only without a reasoning parser,
 * and then as false). A named choice keeps only its tool.
 */
function nativeStructuralTag(model: "qwen_3_coder" | "harmony", tools: readonly Tool[], named: string | null): Record<string, unknown> {
  const kept = named === null ? tools : tools.filter((tool) => tool.function.name === named);
  if (model === "qwen_3_coder") {
    const callTag = (tool: Tool) =>
      tag(`<tool_call>\n<function=${tool.function.name}>\n`, { type: "json_schema", json_schema: argumentSchema(tool), style: "qwen_xml" }, "\n</function>\n</tool_call>");
    const format = named === null ? tagsWithSeparator(kept.map(callTag), "", true) : callTag(kept[0]!);
    return { type: "structural_tag", format };
  }
  const harmonyTags = (tool: Tool) => {
    const content = { type: "json_schema", json_schema: argumentSchema(tool), style: "json" };
    const name = tool.function.name;
    return [
      tag(`<|channel|>commentary to=functions.${name}<|constrain|>json<|message|>`, content, "<|call|>"),
      tag(` to=functions.${name}<|channel|>commentary <|constrain|>json<|message|>`, content, "<|call|>"),
      tag(` to=functions.${name}<|channel|>commentary json<|message|>`, content, "<|call|>"),
    ];
  };
  // (harmony's tags_with_separator keeps at_least_one false even for "required", as xgrammar writes it)
  return { type: "structural_tag", format: tagsWithSeparator(kept.flatMap(harmonyTags), "<|start|>assistant", false) };
}

/**
 * The structural tag upstream's get_structure_constraint returns for "required" (`named` null) / a named function: the
 * native tag first, else the legacy one; null for a parser with neither (glm45). The caller checks the tools' $defs.
 */
export function structuralTagFor(toolCallParser: string | null, tools: readonly Tool[], named: string | null): Record<string, unknown> | null {
  if (toolCallParser === null) return null;
  const model = NATIVE_MODELS[toolCallParser];
  if (model) return nativeStructuralTag(model, tools, named);
  const structure = LEGACY_STRUCTURES[toolCallParser];
  return structure ? legacyStructuralTag(tools, structure) : null;
}
