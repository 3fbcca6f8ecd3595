// Doctor: the policy's and the judge's checkpoint folders hold tokenizer.json and a tokenizer_config.json with a
// chat_template (what the proxy renders and tokenizes with), and config.json where an engine loads weights.
import { readFile, access } from "node:fs/promises";
import path from "node:path";
import type { Recipe } from "../../contracts/recipe.ts";
import { chatTemplateText, readChatTemplateFile, resolveTokenizerFolder } from "../../lib/model/model-files.ts";
import { judgeTokenizerSource, policyTokenizerSource } from "../../lib/model/tokenizer-sources.ts";
import { failed, passed, type CheckResult } from "./check-result.ts";

interface Folder {
  key: string; // the YAML path it comes from
  source: string;
  needsWeights: boolean;
}

export function checkpointFolders(recipe: Recipe): Folder[] {
  const engineLoadsWeights = recipe.engine.kind === "slime";
  const policy = policyTokenizerSource(recipe);
  const folders: Folder[] = [{ key: policy.key, source: policy.path, needsWeights: false }];
  if (engineLoadsWeights) folders.push({ key: "model.path", source: recipe.model.path, needsWeights: true });
  if (recipe.judge.launch !== "external" || recipe.engine.kind === "rehearsal") {
    const judge = judgeTokenizerSource(recipe);
    folders.push({ key: judge.key, source: judge.path, needsWeights: false });
    if (engineLoadsWeights && recipe.judge.launch !== "external") folders.push({ key: recipe.judge.path ? "judge.path" : "model.path", source: recipe.derived.judgePath, needsWeights: true });
  }
  const seen = new Set<string>();
  return folders.filter((folder) => {
    const id = `${folder.source}|${folder.needsWeights}`;
    return seen.has(id) ? false : (seen.add(id), true);
  });
}

export async function checkCheckpoints(recipe: Recipe): Promise<CheckResult[]> {
  return Promise.all(checkpointFolders(recipe).map((folder) => (folder.needsWeights ? checkWeights(folder) : checkTokenizer(folder))));
}

async function checkTokenizer(folder: Folder): Promise<CheckResult> {
  const directory = resolveTokenizerFolder(folder.source);
  const fix = `point ${folder.key} at a Hugging Face checkpoint folder (tokenizer.json, tokenizer_config.json), or use builtin:qwen3`;
  try {
    await access(path.join(directory, "tokenizer.json"));
  } catch {
    return failed("tokenizer", `${folder.key} (${folder.source}): no tokenizer.json in ${directory}`, fix);
  }
  let config: unknown;
  try {
    config = JSON.parse(await readFile(path.join(directory, "tokenizer_config.json"), "utf8"));
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no tokenizer_config.json" : "tokenizer_config.json is not valid JSON";
    return failed("tokenizer", `${folder.key} (${folder.source}): ${why}`, fix);
  }
  const template = (await readChatTemplateFile(directory).catch(() => null)) ?? chatTemplateText((config as { chat_template?: unknown } | null)?.chat_template);
  if (template === null) {
    return failed("tokenizer", `${folder.key} (${folder.source}): neither chat_template.jinja nor a chat_template in tokenizer_config.json`, "use the model's own tokenizer_config.json (instruct/thinking checkpoints carry the chat template)");
  }
  return passed("tokenizer", `${folder.key} (${folder.source}): tokenizer.json and a chat_template`);
}

async function checkWeights(folder: Folder): Promise<CheckResult> {
  try {
    await access(path.join(folder.source, "config.json"));
    return passed("checkpoint", `${folder.key} (${folder.source}) holds config.json`);
  } catch {
    return failed("checkpoint", `${folder.key} (${folder.source}): no config.json, so SGLang and slime cannot load it`, `download the checkpoint (e.g. Qwen/Qwen3-4B-Thinking-2507) and set ${folder.key} to its folder`);
  }
}
