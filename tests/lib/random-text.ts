// Random OpenClaw-like text for tokenizer tests: a seeded generator, and text made of pieces of agent traffic (chat
// markup, prose, code, scripts, whitespace runs, combining marks, emoji sequences).

/** A seeded generator of numbers in [0, 1). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

/** Pieces of agent traffic: chat markup (added tokens, and text that looks like them), prose, code, scripts, whitespace. */
export const PIECES = [
  "<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<|endoftext|>",
  "<|im_", "end|>", "<think", "system\n", "user\n", "assistant\n", "\n", "\n\n", "\n\n\n", " ", "  ", "\t", "\r\n", " \n ",
  "Hello world", " the quick brown fox", "It's 5 miles — about 8 km.", "don't", "I'll", "naïve café", "e\u0301", "a\u0300\u0301",
  'def f(x):\n    return {"a": [1, 2, 3]}', "    ", "{\"path\": \"notes/2026-11-26.md\", \"n\": 1e-05}", "1234567890", "3.14159", "-42",
  "你好，世界。", "こんにちは", "안녕하세요", "Привет", "🙂", "👩‍👩‍👧", "🚀🚀", "\u200b", "\ufeff", "\u00a0", "x", "ab", "URL https://example.com/a?b=c#d",
];

export function randomText(next: () => number, parts: number): string {
  let text = "";
  for (let count = 0; count < parts; count++) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}
