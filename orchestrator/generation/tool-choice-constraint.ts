// What SGLang constrains a generation with when tool_choice is "required" or a named function: per flavour and parser,
// a structural tag (upstream, structural-tag.ts) or a JSON schema of an array of {"name", "parameters"} objects (the
// fork always; tests/fixtures/sglang-tool-choice/constraints.json cites each), and whether the grammar waits for the
// reasoning to end. Ignores how the output is read.
import type { ChatRequest, Tool } from "../../contracts/chat.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { ReasoningToggle } from "../../lib/model/reasoning-toggle.ts";
import { constrainsNatively, structuralTagFor, structuralTagKind } from "../../lib/model/parsers/structural-tag.ts";
import { forcesToolCall, namedFunction, type ToolChoice } from "../../lib/model/tool-choice.ts";
import { requiresReasoning } from "../../lib/model/parsers/thinking-mode.ts";

/** One tool's item schema, as SGLang's _get_tool_schema writes it. */
function toolItemSchema(tool: Tool): Record<string, unknown> {
  const parameters = tool.function.parameters as Record<string, unknown> | null | undefined;
  return {
    properties: { name: { type: "string", enum: [tool.function.name] }, parameters: parameters ? parameters : { type: "object", properties: {} } },
    required: ["name", "parameters"],
  };
}

/** The tools' `$defs` merged, or the name defined twice with different schemas. */
function definitionsOf(tools: readonly Tool[]): { merged: Record<string, unknown>; clash: string | null } {
  const merged: Record<string, unknown> = {};
  for (const tool of tools) {
    const definitions = ((tool.function.parameters ?? {}) as { $defs?: Record<string, unknown> }).$defs ?? {};
    for (const [name, schema] of Object.entries(definitions)) {
      if (name in merged && JSON.stringify(merged[name]) !== JSON.stringify(schema)) return { merged, clash: name };
      merged[name] = schema;
    }
  }
  return { merged, clash: null };
}

/** The tools' `$defs` merged; SGLang refuses one name with two schemas, and so does this. */
function mergedDefinitions(tools: readonly Tool[]): Record<string, unknown> {
  const { merged, clash } = definitionsOf(tools);
  if (clash !== null) {
    throw new OpenclawRlError("BAD_REQUEST", `Tool definition '${clash}' has multiple schemas, which is not supported.`, {
      path: "tools",
      hint: "give the tools' $defs distinct names (tool_choice required merges them into one schema, as SGLang does)",
    });
  }
  return merged;
}

/**
 * The JSON schema SGLang constrains "required" / a named function with, or null when the choice forces no call (or
 * names no offered tool). fork: a named function gives exactly one call; upstream: one call only when
 * parallel_tool_calls is false, for either choice.
 */
export function toolChoiceSchema(tools: readonly Tool[], choice: ToolChoice, options: { flavor: "fork" | "upstream"; parallelToolCalls: boolean }): Record<string, unknown> | null {
  const single = options.flavor === "upstream" && !options.parallelToolCalls;
  const named = namedFunction(choice);
  if (named !== null) {
    const tool = tools.find((candidate) => candidate.function.name === named);
    if (!tool) return null;
    return { type: "array", minItems: 1, ...(options.flavor === "fork" || single ? { maxItems: 1 } : {}), items: toolItemSchema(tool) };
  }
  if (choice !== "required" || tools.length === 0) return null;
  const definitions = mergedDefinitions(tools);
  return {
    type: "array",
    minItems: 1,
    ...(single ? { maxItems: 1 } : {}),
    items: { type: "object", anyOf: tools.map(toolItemSchema) },
    ...(Object.keys(definitions).length > 0 ? { $defs: definitions } : {}),
  };
}

/** A grammar /generate takes in sampling_params: its key and its value as text. */
export interface ToolChoiceGrammar {
  key: "json_schema" | "structural_tag";
  value: string;
}

/**
 * The grammar SGLang builds for a forced call (a structural tag first, else json_schema), or null when the choice forces
 * none. Under upstream a legacy tag whose tools' $defs clash falls to json_schema, as SGLang's check throws there.
 */
export function toolChoiceGrammar(tools: readonly Tool[], choice: ToolChoice, options: { flavor: "fork" | "upstream"; parallelToolCalls: boolean; toolCallParser: string | null }): ToolChoiceGrammar | null {
  if (!forcesToolCall(choice) || tools.length === 0) return null;
  if (constrainsNatively(options.toolCallParser, options.flavor)) {
    const legacyRefused = structuralTagKind(options.toolCallParser) === "legacy" && definitionsOf(tools).clash !== null;
    const tag = !legacyRefused ? structuralTagFor(options.toolCallParser, tools, namedFunction(choice)) : null;
    if (tag !== null) return { key: "structural_tag", value: JSON.stringify(tag) };
  }
  const schema = toolChoiceSchema(tools, choice, options);
  return schema === null ? null : { key: "json_schema", value: JSON.stringify(schema) };
}

/**
 * What a request's tool_choice adds to its /generate request: the grammar in sampling_params and require_reasoning
 * (thinking-mode.ts: under upstream the chat template's reasoning toggle decides it); null when it forces no call. SGLang sends nothing either when the request already asks for another constraint (the
 * proxy refuses response_format json_* in tokens mode, so none comes).
 */
export function toolChoiceConstraint(
  request: ChatRequest,
  parsers: { toolCallParser: string | null; reasoningParser: string | null },
  flavor: "fork" | "upstream",
  templateToggle: ReasoningToggle | null,
): { grammar: ToolChoiceGrammar; requireReasoning: boolean } | null {
  const parallelToolCalls = (request as { parallel_tool_calls?: unknown }).parallel_tool_calls !== false;
  const grammar = toolChoiceGrammar(request.tools ?? [], request.tool_choice, { flavor, parallelToolCalls, toolCallParser: parsers.toolCallParser });
  if (grammar === null) return null;
  return { grammar, requireReasoning: requiresReasoning(request, { reasoningParser: parsers.reasoningParser, flavor, templateToggle }) };
}
