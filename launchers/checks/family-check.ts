// The policy's model family (lib/model/model-family.ts) against the parsers the recipe asks
// for. A recipe that forces Qwen's parsers on a family that writes other markup fails: its tool calls would reach the
// agent as text and never run. An unknown family is said, with what to do. Ignores rendering and tokenizing.
import type { Recipe } from "../../contracts/recipe.ts";
import { parserNames, resolveFamily } from "../../lib/model/model-family.ts";
import { policyTokenizerSource } from "../../lib/model/tokenizer-sources.ts";
import { failed, passed, warned, type CheckResult } from "./check-result.ts";

export async function checkFamily(recipe: Recipe): Promise<CheckResult> {
  const tokenizer = policyTokenizerSource(recipe);
  const { family, evidence, templateRead, sglang: own } = await resolveFamily(recipe);
  if (!templateRead && !family) return passed("model-family", `not checked: no readable tokenizer_config.json for ${tokenizer.key} (${tokenizer.path}): see the tokenizer check`);
  if (!family) {
    return warned(
      "model-family",
      `the policy's model family is unknown: ${evidence}; its output is parsed as Qwen3's (<think>, <tool_call>{json}</tool_call>), so other markup would reach the agent as text`,
      "set model.family if the checkpoint is one of qwen3, qwen3-coder, llama3, deepseek-v3, glm-4.5, gpt-oss; otherwise proxy.mode: passthrough lets SGLang parse it with the parser you give it",
    );
  }
  const names = parserNames(recipe.model, own);
  const said = `--tool-call-parser ${names.toolCallParser ?? "none"}, --reasoning-parser ${names.reasoningParser ?? "none"}`;
  if (names.toolCallParser !== null && names.toolCallParser !== own.toolCallParser) {
    return failed(
      "model-family",
      `${family.name} (${evidence}) writes tool calls as ${family.toolCallMarkup}, but model.tool_call_parser ${recipe.model.tool_call_parser} forces Qwen's parser: its tool calls would reach the agent as text and never run`,
      `set model.tool_call_parser: auto (the family's: ${own.toolCallParser}); if its markup is Qwen's after all, set model.family: qwen3`,
      { code: "ENGINE_UNSUPPORTED", path: "model.tool_call_parser" },
    );
  }
  if (names.toolCallParser === null && names.reasoningParser === null) {
    return warned("model-family", `${family.name} (${evidence}): model.tool_call_parser and model.reasoning_parser are none, so its reasoning and tool calls (${family.toolCallMarkup}) reach the agent as text`, "keep it so only for agents that call no tools");
  }
  return passed("model-family", `${family.name} (${evidence}): its reasoning and tool calls are parsed in tokens mode and by SGLang (${said})`);
}
