// ModelTokenizer against Hugging Face's tokenizers library encoding each text whole: the segment cache (text cut at
// added tokens, each piece encoded once) and the per-session memo change no id, on random OpenClaw-like text and on
// the recorded stock OpenClaw prompts; the cache keeps no prompt alive; concurrent requests share one encode.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { chatRequestSchema } from "../../contracts/chat.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { openclawFixture } from "../proxy/fixtures.ts";
import { hfTokenizer } from "./hf-tokenizer.ts";

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

/** Pieces of agent traffic: chat markup (added tokens, and text that looks like them), prose, code, scripts, whitespace. */
const PIECES = [
  "<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<|endoftext|>",
  "<|im_", "end|>", "<think", "system\n", "user\n", "assistant\n", "\n", "\n\n", "\n\n\n", " ", "  ", "\t", "\r\n", " \n ",
  "Hello world", " the quick brown fox", "It's 5 miles — about 8 km.", "don't", "I'll", "naïve café", "e\u0301", "a\u0300\u0301",
  'def f(x):\n    return {"a": [1, 2, 3]}', "    ", "{\"path\": \"notes/2026-11-26.md\", \"n\": 1e-05}", "1234567890", "3.14159", "-42",
  "你好，世界。", "こんにちは", "안녕하세요", "Привет", "🙂", "👩‍👩‍👧", "🚀🚀", "\u200b", "\ufeff", "\u00a0", "x", "ab", "URL https://example.com/a?b=c#d",
];

function randomText(next: () => number, parts: number): string {
  let text = "";
  for (let count = 0; count < parts; count++) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

describe("ModelTokenizer (Hugging Face's tokenizers with a segment cache)", () => {
  it("gives the library's ids for the whole text on random text, cut at added tokens, with its segments cached or not", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    const library = hfTokenizer(files.tokenizerJson);
    const tokenizer = new ModelTokenizer(files);
    const next = random(19);
    for (let sample = 0; sample < 300; sample++) {
      const text = randomText(next, 1 + Math.floor(next() * 30));
      const expected = await library.encode(text);
      expect(await tokenizer.encode(text), JSON.stringify(text)).toEqual(expected);
      expect(await tokenizer.encode(text), `${JSON.stringify(text)} (cached)`).toEqual(expected);
    }
    expect(tokenizer.cachedSegments).toBeGreaterThan(100);
  });

  it("gives the library's ids for the recorded stock OpenClaw prompts (a 40 KB system prompt, tools, tool results)", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    const library = hfTokenizer(files.tokenizerJson);
    const tokenizer = new ModelTokenizer(files);
    const template = new ChatTemplate(files);
    for (const name of ["main-turn-1", "main-turn-2", "tool-turn-1", "tool-turn-2"] as const) {
      const request = chatRequestSchema.parse(openclawFixture(name).body);
      const prompt = template.render(request.messages, { tools: request.tools ?? null, addGenerationPrompt: true, extra: request.chat_template_kwargs ?? undefined });
      expect(prompt.length).toBeGreaterThan(40_000);
      const expected = await library.encode(prompt);
      const encoded = await tokenizer.encodePrompt(prompt, "openclaw");
      expect(Array.from(encoded.ids), name).toEqual(expected);
      expect(JSON.parse(`[${encoded.idsJsonParts.join(",")}]`), `${name}: the engine request's input_ids`).toEqual(expected);
    }
  });

  it("encodes a new segment once for concurrent prompts that hold it, in one call to the library per prompt", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    const tokenizer = new ModelTokenizer(files);
    const rust = (tokenizer as unknown as { rust: { encodeBatch(texts: string[], options: object): Promise<unknown> } }).rust;
    const texts: string[][] = [];
    const original = rust.encodeBatch.bind(rust);
    rust.encodeBatch = (batch, options) => (texts.push(batch), original(batch, options));
    const system = `<|im_start|>system\n${"Follow the rules. ".repeat(2000)}<|im_end|>\n`;
    const prompts = ["a", "b", "c"].map((name) => `${system}<|im_start|>user\nhello from ${name}<|im_end|>\n<|im_start|>assistant\n`);
    const encoded = await Promise.all(prompts.map((prompt, index) => tokenizer.encodePrompt(prompt, `session-${index}`)));
    const library = hfTokenizer(files.tokenizerJson);
    for (const [index, prompt] of prompts.entries()) expect(Array.from(encoded[index]!.ids)).toEqual(await library.encode(prompt));
    expect(texts.flat().filter((text) => text.startsWith("system\nFollow"))).toHaveLength(1);
    expect(texts).toHaveLength(3); // each prompt's new segments in one batch
  });

  it("keeps no prompt alive through the segments it caches, short ones included", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const tokenizer = new ModelTokenizer(await loadTokenizerFiles("builtin:qwen3"));
    const heapAfterGc = (): number => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    await tokenizer.encode("<|im_start|>user\nwarm-up message<|im_end|>");
    const before = heapAfterGc();
    for (let index = 0; index < 100; index++) {
      // a 240 KB prompt whose only plain segment is a new short message (20-odd characters: V8 slices those)
      const prompt = `${"<|im_start|>".repeat(20_000)}user\nshort message ${index}`;
      expect((await tokenizer.encode(prompt)).length).toBe(20_000 + (await tokenizer.encode(`user\nshort message ${index}`)).length);
    }
    const grown = heapAfterGc() - before;
    expect(tokenizer.cachedSegments).toBeGreaterThanOrEqual(101);
    expect(grown).toBeLessThan(5_000_000); // pinning each prompt would keep 100 × 240 KB = 24 MB
  });

  it("decodes as the library does, special tokens kept or skipped, pieces of a character as U+FFFD", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    const library = hfTokenizer(files.tokenizerJson);
    const tokenizer = new ModelTokenizer(files);
    const next = random(23);
    for (let sample = 0; sample < 200; sample++) {
      const ids = await tokenizer.encode(randomText(next, 1 + Math.floor(next() * 20)));
      // whole, and cut at a random place (inside a character's bytes, often)
      const cut = ids.slice(Math.floor(next() * ids.length));
      for (const part of [ids, cut]) {
        expect(tokenizer.decode(part), JSON.stringify(part)).toBe(await library.decode(part, false));
        expect(tokenizer.decode(part, { skipSpecialTokens: true }), JSON.stringify(part)).toBe(await library.decode(part, true));
      }
    }
    const random151k = Array.from({ length: 500 }, () => Math.floor(next() * 151_669));
    expect(tokenizer.decode(random151k)).toBe(await library.decode(random151k, false));
    for (const id of random151k.slice(0, 100)) expect(tokenizer.tokenText(id)).toBe(await library.decode([id], false));
  });
});

describe("loadTokenizerFiles", () => {
  it("takes chat_template.jinja over tokenizer_config.json's entry, as transformers does, and names a folder with neither", async () => {
    const qwen3 = await loadTokenizerFiles("builtin:qwen3");
    const folder = await mkdtemp(path.join(tmpdir(), "chat-template-file-"));
    await writeFile(path.join(folder, "tokenizer.json"), JSON.stringify(qwen3.tokenizerJson));
    const { chat_template: _template, ...withoutTemplate } = qwen3.tokenizerConfig;
    await writeFile(path.join(folder, "tokenizer_config.json"), JSON.stringify(withoutTemplate));
    await expect(loadTokenizerFiles(folder).then((files) => new ChatTemplate(files))).rejects.toThrow(/has no chat template \(neither chat_template\.jinja nor a chat_template in tokenizer_config\.json\)/);
    await writeFile(path.join(folder, "chat_template.jinja"), "{%- for message in messages %}[{{ message.role }}] {{ message.content }}\n{%- endfor %}");
    const files = await loadTokenizerFiles(folder);
    expect(new ChatTemplate(files).render([{ role: "user", content: "hi" }], { tools: null, addGenerationPrompt: false })).toBe("[user] hi"); // (`-%}` … `{%-` strips the newline)
    await writeFile(path.join(folder, "tokenizer_config.json"), JSON.stringify(qwen3.tokenizerConfig)); // both: the file wins
    expect((await loadTokenizerFiles(folder)).tokenizerConfig.chat_template).toMatch(/^\{%- for message in messages %\}\[/);
  });


  it("names the missing file in a fixed order: tokenizer.json first, then tokenizer_config.json", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "tokenizer-files-"));
    for (let attempt = 0; attempt < 20; attempt++) {
      await expect(loadTokenizerFiles(folder)).rejects.toMatchObject({ code: "TEMPLATE_ERROR", path: path.join(folder, "tokenizer.json") });
    }
    await writeFile(path.join(folder, "tokenizer.json"), "{}");
    await expect(loadTokenizerFiles(folder)).rejects.toMatchObject({ code: "TEMPLATE_ERROR", path: path.join(folder, "tokenizer_config.json") });
    await writeFile(path.join(folder, "tokenizer_config.json"), "{ not json");
    await expect(loadTokenizerFiles(folder)).rejects.toThrow(`tokenizer_config.json at ${path.join(folder, "tokenizer_config.json")} is not valid JSON`);
  });
});
