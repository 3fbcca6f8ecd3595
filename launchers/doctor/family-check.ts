// Doctor and preflight: the policy's model family (lib/model/model-family.ts) against what this project parses. A
// family whose tool calls it cannot read fails while parsers are on: its tool calls would reach the agent as text
// and never run. Ignores rendering and tokenizing.
import type { Recipe } from "../../contracts/recipe.ts";
import { resolveFamily } from "../../lib/model/model-family.ts";
import { policyTokenizerSource } from "../../lib/model/tokenizer-sources.ts";
import { failed, passed, skipped, warned, type CheckResult } from "./doctor-check.ts";

export async function checkFamily(recipe: Recipe): Promise<CheckResult> {
  const tokenizer = policyTokenizerSource(recipe);
  const { family, evidence, templateRead, sglang: names } = await resolveFamily(recipe);
  if (!templateRead && !family) return skipped("model-family", `no readable tokenizer_config.json for ${tokenizer.key} (${tokenizer.path}): see the tokenizer check`);
  const parsersOn = recipe.model.tool_call_parser !== "none" || recipe.model.reasoning_parser !== "none";
  if (!family) {
    return warned("model-family", `the policy's model family is unknown: ${evidence}; its output is parsed as Qwen3's (<think>, <tool_call>{json}</tool_call>)`, "set model.family if the checkpoint is one of qwen3, qwen3-coder, llama3, deepseek-v3, glm-4.5, gpt-oss");
  }
  const sglang = `SGLang's parsers for it: --tool-call-parser ${names.toolCallParser}${names.reasoningParser ? ` --reasoning-parser ${names.reasoningParser}` : ""}`;
  if (family.parsedHere) return passed("model-family", `${family.name} (${evidence}): its reasoning and tool calls are parsed in tokens mode; ${sglang}`);
  if (!parsersOn) {
    return warned("model-family", `${family.name} (${evidence}): model.tool_call_parser and model.reasoning_parser are none, so its reasoning and tool calls (${family.toolCallMarkup}) reach the agent as text`, "keep it so only for agents that call no tools");
  }
  return failed(
    "model-family",
    `${family.name} (${evidence}) writes tool calls as ${family.toolCallMarkup}; this project parses only Qwen3's markup, so in tokens mode they would reach the agent as text and never run, and in passthrough SGLang would be started with Qwen's parsers (${sglang})`,
    "serve a Qwen3 checkpoint; to serve this one without tool calls or a reasoning split, set model.tool_call_parser: none and model.reasoning_parser: none; if its markup is Qwen3's after all, set model.family: qwen3",
  );
}
