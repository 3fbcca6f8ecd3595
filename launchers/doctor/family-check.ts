// Doctor and preflight: the policy's model family (lib/model/model-family.ts) against what this project parses. A
// family whose tool calls it cannot read fails while parsers are on: its tool calls would reach the agent as text
// and never run. Ignores rendering and tokenizing.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Recipe } from "../../contracts/recipe.ts";
import { familyOf, readArchitectures, templateSource } from "../../lib/model/model-family.ts";
import { resolveTokenizerFolder } from "../../lib/model/model-files.ts";
import { policyTokenizerSource } from "../../lib/model/tokenizer-sources.ts";
import { failed, passed, skipped, warned, type CheckResult } from "./doctor-check.ts";

export async function checkFamily(recipe: Recipe): Promise<CheckResult> {
  const tokenizer = policyTokenizerSource(recipe);
  let tokenizerConfig: Record<string, unknown>;
  try {
    tokenizerConfig = JSON.parse(await readFile(path.join(resolveTokenizerFolder(tokenizer.path), "tokenizer_config.json"), "utf8")) as Record<string, unknown>;
  } catch {
    return skipped("model-family", `no readable tokenizer_config.json for ${tokenizer.key} (${tokenizer.path}): see the tokenizer check`);
  }
  const architectures = [...new Set([...(await readArchitectures(recipe.model.path)), ...(await readArchitectures(tokenizer.path))])];
  const { family, evidence } = familyOf({ chatTemplate: templateSource(tokenizerConfig), architectures, named: recipe.model.family });
  const parsersOn = recipe.model.tool_call_parser !== "none" || recipe.model.reasoning_parser !== "none";
  if (!family) {
    return warned("model-family", `the policy's model family is unknown: ${evidence}; its output is parsed as Qwen3's (<think>, <tool_call>{json}</tool_call>)`, "set model.family if the checkpoint is one of qwen3, qwen3-coder, llama3, deepseek-v3, glm-4.5, gpt-oss");
  }
  const sglang = `SGLang's parsers for it: --tool-call-parser ${family.sglang.toolCallParser}${family.sglang.reasoningParser ? ` --reasoning-parser ${family.sglang.reasoningParser}` : ""}`;
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
