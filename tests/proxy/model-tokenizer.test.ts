// ModelTokenizer against the library it wraps, untouched: dropping the BPE model's construction-only data (merges as
// pairs, the config's vocab and merges) and mapping ASCII words to byte-level characters without the library's
// TextEncoder round trip change no id and no decoded text, over text that exercises merges, byte fallback to
// byte-level tokens, added tokens, every ASCII character and the segment cache.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { TokenizerLoader } from "@lenml/tokenizers";
import { describe, expect, it } from "vitest";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { chatRequestSchema } from "../../contracts/chat.ts";
import { INLINE_ENCODE_CHARS } from "../../orchestrator/capture/prompt-builder.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { openclawFixture } from "./fixtures.ts";
import { lineChunks } from "../../lib/model/line-chunks.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";

const TEXTS = [
  "Hello world",
  "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHow far is 5 miles in km?<|im_end|>\n<|im_start|>assistant\n",
  "<think>\nThe user wants kilometres: 5 × 1.609 = 8.045.\n</think>\n\nAbout 8 km.",
  'def f(x):\n    return {"a": [1, 2, 3], "b": x ** 2}  # comment\n\n\n\t\ttabs and   spaces   ',
  "Привет, мир! Ünïcödé façade naïve — “quotes” 'single' … 你好，世界。こんにちは 안녕하세요 🙂🚀👩‍👩‍👧",
  "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"notes/2026-11-22.md\"}}\n</tool_call>",
  "numbers 1234567890 3.14159 -42 1e-9 0x1F and URLs https://example.com/a?b=c&d=e#f",
  "\u0000\u0007 control \u200b zero-width \ufeff bom",
  // every ASCII character (the byte-level fast path), alone and beside non-ASCII ones in one word, and lone surrogates
  Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)).join(""),
  Array.from({ length: 128 }, (_, code) => `w${String.fromCharCode(code)}é${String.fromCharCode(code)}x ${String.fromCharCode(code)}`).join(""),
  "café\u0080\u00ff\u0100 a\ud800b \udc00c d\ud83d",
];

describe("ModelTokenizer (Qwen3's tokenizer.json through @lenml/tokenizers)", () => {
  it("gives the untouched library's ids and decoded text after letting go of construction-only data, with its own byte-level step and word cache", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    const untouched = TokenizerLoader.fromPreTrained({ tokenizerJSON: structuredClone(files.tokenizerJson), tokenizerConfig: structuredClone(files.tokenizerConfig) }) as unknown as {
      encode(text: string, options: { add_special_tokens: boolean }): number[];
      decode(ids: number[], options: { skip_special_tokens: boolean }): string;
    };
    const tokenizer = new ModelTokenizer(files);
    const model = (tokenizer as unknown as { inner: { model: { merges: unknown[]; config: Record<string, unknown> } } }).inner.model;
    expect(model.merges).toHaveLength(0);
    expect(model.config.vocab).toBeUndefined();
    expect(model.config.merges).toBeUndefined();
    const byteLevel = (tokenizer as unknown as { inner: { pre_tokenizer: { tokenizers: object[] } } }).inner.pre_tokenizer.tokenizers[1]!;
    expect(Object.hasOwn(byteLevel, "pre_tokenize"), "the ASCII byte-level path is in place").toBe(true);
    const wordCache = (tokenizer as unknown as { inner: { model: { cache: unknown } } }).inner.model.cache;
    expect(wordCache, "the two-generation word cache is in place").not.toBeInstanceOf((untouched as unknown as { model: { cache: { constructor: new () => unknown } } }).model.cache.constructor);
    expect(tokenizer.encode("Hello world")).toEqual([9707, 1879]);
    for (const text of [...TEXTS, TEXTS.join("\n")]) {
      const ids = untouched.encode(text, { add_special_tokens: false });
      expect(tokenizer.encode(text), text).toEqual(ids);
      expect(tokenizer.encode(text), `${text} (cached segments)`).toEqual(ids);
      expect(tokenizer.decode(ids), text).toBe(untouched.decode(ids, { skip_special_tokens: false }));
    }
  });

  it("pre-tokenizes every UTF-16 code unit, surrogate pairs and lone surrogates as the library does", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    type PreTokenizer = (text: string) => string[];
    const untouched = (TokenizerLoader.fromPreTrained({ tokenizerJSON: structuredClone(files.tokenizerJson), tokenizerConfig: structuredClone(files.tokenizerConfig) }) as unknown as { pre_tokenizer: PreTokenizer }).pre_tokenizer;
    const ours = (new ModelTokenizer(files) as unknown as { inner: { pre_tokenizer: PreTokenizer } }).inner.pre_tokenizer;
    for (let from = 0; from < 0x10000; from += 512) {
      // 512 consecutive code units (as words: each unit after a letter, and runs of them) and the pairs they make
      let text = "";
      for (let code = from; code < from + 512; code++) text += `a${String.fromCharCode(code)} ${String.fromCharCode(code, code ^ 0x400)}`;
      expect(ours(text), `code units from ${from.toString(16)}`).toEqual(untouched(text));
    }
    let seed = 11;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pick = [() => 0x20 + Math.floor(next() * 95), () => 0x80 + Math.floor(next() * 0x780), () => 0x800 + Math.floor(next() * 0xf800), () => 0xd800 + Math.floor(next() * 0x400), () => 0xdc00 + Math.floor(next() * 0x400)];
    for (let sample = 0; sample < 300; sample++) {
      let text = "";
      for (let length = Math.floor(next() * 40); length > 0; length--) text += String.fromCharCode(pick[Math.floor(next() * pick.length)]!());
      expect(ours(text), JSON.stringify(text)).toEqual(untouched(text));
    }
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
    tokenizer.encode("<|im_start|>user\nwarm-up message<|im_end|>");
    const before = heapAfterGc();
    for (let index = 0; index < 100; index++) {
      // a 240 KB prompt whose only plain segment is a new short message (20-odd characters: V8 slices those)
      const prompt = `${"<|im_start|>".repeat(20_000)}user\nshort message ${index}`;
      expect(tokenizer.encode(prompt).length).toBe(20_000 + tokenizer.encode(`user\nshort message ${index}`).length);
    }
    const grown = heapAfterGc() - before;
    expect(tokenizer.cachedSegments).toBeGreaterThanOrEqual(101);
    expect(grown).toBeLessThan(5_000_000); // pinning each prompt would keep 100 × 240 KB = 24 MB
  });
});

describe("loadTokenizerFiles", () => {
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

describe("long segments cut at line starts", () => {
  const LINES = [
    "function f(x) {", "  return x + 1;", "}", "// a comment", "# heading", "- item one", "* item two", "<div class=\"a\">", "'s and 'll at the start",
    "Plain prose line with words and numbers 12345.", "\tindented with a tab", "    four spaces", "", " ", "日本語の行", "\u0301combining mark first",
    "émigré café", "🙂 emoji first", "x\r", "\"quoted\"", "{\"json\": [1, 2, 3]}", "   ", "end.", "...", "'", "\u00a0nbsp first",
  ];
  function document(seed: number, lines: number): string {
    let state = seed >>> 0;
    const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const out: string[] = [];
    for (let index = 0; index < lines; index++) out.push(LINES[Math.floor(next() * LINES.length)]! + (next() < 0.1 ? "\n" : ""));
    return out.join(next() < 0.5 ? "\n" : "\r\n");
  }

  it("gives the untouched library's ids for long multi-line texts, which it does cut", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    const untouched = TokenizerLoader.fromPreTrained({ tokenizerJSON: structuredClone(files.tokenizerJson), tokenizerConfig: structuredClone(files.tokenizerConfig) }) as unknown as { encode(text: string, options: { add_special_tokens: boolean }): number[] };
    const tokenizer = new ModelTokenizer(files, 0);
    let cut = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const text = document(seed, 150 + seed * 7);
      cut += lineChunks(text).length - 1;
      expect(tokenizer.encode(text), `seed ${seed}`).toEqual(untouched.encode(text, { add_special_tokens: false }));
      const framed = `<|im_start|>user\n<tool_response>\n${text}\n</tool_response><|im_end|>\n`;
      expect(tokenizer.encode(framed), `seed ${seed}, framed`).toEqual(untouched.encode(framed, { add_special_tokens: false }));
    }
    expect(cut).toBeGreaterThan(100);
  });

  it("gives the untouched library's ids for the recorded stock OpenClaw prompts (a 40 KB system prompt, cut)", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    const untouched = TokenizerLoader.fromPreTrained({ tokenizerJSON: structuredClone(files.tokenizerJson), tokenizerConfig: structuredClone(files.tokenizerConfig) }) as unknown as { encode(text: string, options: { add_special_tokens: boolean }): number[] };
    const tokenizer = new ModelTokenizer(files);
    const template = new ChatTemplate(files);
    for (const name of ["main-turn-1", "main-turn-2", "tool-turn-1", "tool-turn-2"] as const) {
      const request = chatRequestSchema.parse(openclawFixture(name).body);
      const prompt = template.render(request.messages, { tools: request.tools ?? null, addGenerationPrompt: true, extra: (request.chat_template_kwargs ?? undefined) });
      const system = prompt.slice("<|im_start|>system".length, prompt.indexOf("<|im_end|>"));
      expect(lineChunks(system).length, name).toBeGreaterThan(10);
      expect(tokenizer.encode(prompt), name).toEqual(untouched.encode(prompt, { add_special_tokens: false }));
    }
  });

  it("encodes again only the chunks around a changed line when a long text comes back edited", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    const tokenizer = new ModelTokenizer(files);
    const inner = (tokenizer as unknown as { inner: { encode(text: string, options: object): number[] } }).inner;
    let encodedChars = 0;
    const original = inner.encode.bind(inner);
    inner.encode = (text, options) => ((encodedChars += text.length), original(text, options));
    const lines = Array.from({ length: 600 }, (_, index) => `line ${index}: ${index % 3 === 0 ? "  indented code();" : "some text of the file"}`);
    const file = (edited: string[]) => `<|im_start|>user\n<tool_response>\n${edited.join("\n")}\n</tool_response><|im_end|>\n`;
    const before = file(lines);
    tokenizer.encode(before);
    expect(encodedChars).toBeGreaterThan(before.length - 100);
    const changed = [...lines];
    changed[300] = "line 300: this line was edited by the agent";
    encodedChars = 0;
    const after = file(changed);
    // what is not cached fits the proxy's inline budget: the prompt is built on the event loop, no worker round trip
    expect("ids" in tokenizer.encodeWithin(after, INLINE_ENCODE_CHARS)).toBe(true);
    const untouched = TokenizerLoader.fromPreTrained({ tokenizerJSON: structuredClone(files.tokenizerJson), tokenizerConfig: structuredClone(files.tokenizerConfig) }) as unknown as { encode(text: string, options: { add_special_tokens: boolean }): number[] };
    expect(tokenizer.encode(after)).toEqual(untouched.encode(after, { add_special_tokens: false }));
    expect(encodedChars).toBeLessThan(2000); // of a 17 KB text
    // and the long segment is cached whole too: next time one lookup, and one JSON part for the engine request
    const longSegments = (tokenizer as unknown as { longSegments: { has(text: string): boolean } }).longSegments;
    expect(longSegments.has(`\n${changed.join("\n")}\n`)).toBe(true);
    const encoded = tokenizer.encodeWithin(after, 0);
    expect("idsJsonParts" in encoded && encoded.idsJsonParts).toHaveLength(7); // <|im_start|> "user\n" <tool_response> the file </tool_response> <|im_end|> "\n"
  });

  it("keeps a long segment whole while many long texts' chunks go through the segment cache", async () => {
    const files = await loadTokenizerFiles("builtin:qwen3");
    const tokenizer = new ModelTokenizer(files, 64); // 64 segments and chunks; long segments kept apart
    const inner = (tokenizer as unknown as { inner: { encode(text: string, options: object): number[] } }).inner;
    let calls = 0;
    const original = inner.encode.bind(inner);
    inner.encode = (text, options) => (calls++, original(text, options));
    const system = `<|im_start|>system\n${Array.from({ length: 400 }, (_, index) => `Rule ${index}: follow the policy.`).join("\n")}<|im_end|>\n`;
    tokenizer.encode(system);
    for (let file = 0; file < 20; file++) tokenizer.encode(`<|im_start|>user\n${Array.from({ length: 120 }, (_, index) => `file ${file} line ${index}: some content`).join("\n")}<|im_end|>\n`);
    calls = 0;
    tokenizer.encode(system);
    expect(calls).toBe(0);
  });
});
