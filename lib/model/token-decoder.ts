// Ids → text without leaving the thread: Hugging Face tokenizers' decode (each id's token, added tokens included,
// through the tokenizer.json's decoder chain), written out for the decoders that chat models use, so that streaming
// detokenization and log-prob token texts stay synchronous. Encoding is model-tokenizer.ts's job.
import { OpenclawRlError } from "../../contracts/errors.ts";

/** One step of a decoder chain: tokens in, tokens out (as the Rust library's decode_chain). */
type Step = (tokens: string[]) => string[];

const BYTE_LEVEL_TEXT = byteLevelCharacters();
const UTF8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }); // (a leading BOM is text here)
const UTF8_STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const UTF8_ENCODER = new TextEncoder();

export class TokenDecoder {
  /** Decoding token by token and joining gives the same text as decoding them together (no first-token rules). */
  readonly piecesConcatenate: boolean;
  private readonly tokens: (string | undefined)[];
  private readonly added: Map<number, { text: string; special: boolean }>;
  private readonly steps: Step[];

  constructor(tokenizerJson: Record<string, unknown>) {
    const model = (tokenizerJson.model ?? {}) as { vocab?: unknown };
    this.tokens = [];
    if (Array.isArray(model.vocab)) model.vocab.forEach((row, id) => Array.isArray(row) && typeof row[0] === "string" && (this.tokens[id] = row[0]));
    else if (model.vocab && typeof model.vocab === "object") for (const [token, id] of Object.entries(model.vocab)) if (typeof id === "number") this.tokens[id] = token;
    this.added = new Map();
    for (const token of (tokenizerJson.added_tokens as { id?: unknown; content?: unknown; special?: unknown }[] | undefined) ?? []) {
      if (typeof token.id === "number" && typeof token.content === "string") this.added.set(token.id, { text: token.content, special: token.special === true });
    }
    const { steps, concatenates } = decoderSteps(tokenizerJson.decoder);
    this.steps = steps;
    this.piecesConcatenate = concatenates;
  }

  /**
   * Same text as tokenizer.decode(ids, skip_special_tokens) in Hugging Face tokenizers: every id's token, added ones
   * included, through the decoder chain (special ones left out when skipped; unknown ids dropped).
   */
  decode(ids: ArrayLike<number>, skipSpecialTokens: boolean): string {
    const tokens: string[] = [];
    for (let index = 0; index < ids.length; index++) {
      const id = ids[index]!;
      const added = this.added.get(id);
      if (added) {
        if (!(skipSpecialTokens && added.special)) tokens.push(added.text);
        continue;
      }
      const token = this.tokens[id];
      if (token !== undefined) tokens.push(token);
    }
    return tokens.length > 0 ? this.chain(tokens) : "";
  }

  private chain(tokens: string[]): string {
    let out = tokens;
    for (const step of this.steps) out = step(out);
    return out.join("");
  }
}

/** The steps of a tokenizer.json `decoder`, or a typed error naming the one this project does not decode. */
function decoderSteps(decoder: unknown): { steps: Step[]; concatenates: boolean } {
  if (decoder === null || decoder === undefined) return { steps: [(tokens) => [tokens.join(" ")]], concatenates: false };
  const spec = decoder as { type?: string; decoders?: unknown[] } & Record<string, unknown>;
  switch (spec.type) {
    case "Sequence": {
      const parts = (spec.decoders ?? []).map(decoderSteps);
      return { steps: parts.flatMap((part) => part.steps), concatenates: parts.every((part) => part.concatenates) };
    }
    case "ByteLevel":
      return { steps: [byteLevel], concatenates: true };
    case "ByteFallback":
      return { steps: [byteFallback], concatenates: true };
    case "Fuse":
      return { steps: [(tokens) => [tokens.join("")]], concatenates: true };
    case "Replace": {
      const pattern = (spec.pattern as { String?: unknown } | undefined)?.String;
      if (typeof pattern !== "string") break;
      const content = String(spec.content ?? "");
      return { steps: [(tokens) => tokens.map((token) => token.replaceAll(pattern, content))], concatenates: true };
    }
    case "Strip": {
      const content = String(spec.content ?? " ");
      const start = Number(spec.start ?? 0);
      const stop = Number(spec.stop ?? 0);
      return { steps: [(tokens) => tokens.map((token) => strip(token, content, start, stop))], concatenates: start === 0 && stop === 0 };
    }
    case "Metaspace": {
      const replacement = String(spec.replacement ?? "▁");
      const prepends = (spec.prepend_scheme ?? (spec.add_prefix_space === false ? "never" : "always")) !== "never";
      return {
        steps: [(tokens) => tokens.map((token, index) => {
          const text = token.replaceAll(replacement, " ");
          return prepends && index === 0 && text.startsWith(" ") ? text.slice(1) : text;
        })],
        concatenates: !prepends,
      };
    }
  }
  throw new OpenclawRlError("TEMPLATE_ERROR", `the tokenizer's decoder ${JSON.stringify(spec.type)} is not one this project decodes`, {
    hint: "supported decoders: ByteLevel, Metaspace, and Sequence of Replace, ByteFallback, Fuse and Strip (the decoders of Qwen, Llama, DeepSeek, GLM, Mistral, Gemma and gpt-oss)",
  });
}

/** GPT-2's byte-level: each token's characters back to bytes, all tokens' bytes as one UTF-8 text (invalid bytes as U+FFFD). */
function byteLevel(tokens: string[]): string[] {
  let length = 0;
  for (const token of tokens) length += token.length;
  const bytes = new Uint8Array(length * 3);
  let filled = 0;
  for (const token of tokens) {
    let mapped = true;
    for (let index = 0; index < token.length; index++) if (BYTE_LEVEL_TEXT.get(token.charCodeAt(index)) === undefined) mapped = false;
    if (mapped) for (let index = 0; index < token.length; index++) bytes[filled++] = BYTE_LEVEL_TEXT.get(token.charCodeAt(index))!;
    else for (const byte of UTF8_ENCODER.encode(token)) bytes[filled++] = byte; // (the library keeps such a token's own bytes)
  }
  return [UTF8.decode(bytes.subarray(0, filled))];
}

/** sentencepiece's byte fallback: runs of <0xAB> tokens as UTF-8, one U+FFFD per byte when the run is not valid UTF-8. */
function byteFallback(tokens: string[]): string[] {
  const out: string[] = [];
  let pending: number[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    try {
      out.push(UTF8_STRICT.decode(new Uint8Array(pending)));
    } catch {
      for (let index = 0; index < pending.length; index++) out.push("\uFFFD");
    }
    pending = [];
  };
  for (const token of tokens) {
    const byte = /^<0x([0-9A-Fa-f]{2})>$/.exec(token);
    if (byte) pending.push(Number.parseInt(byte[1]!, 16));
    else {
      flush();
      out.push(token);
    }
  }
  flush();
  return out;
}

function strip(token: string, content: string, start: number, stop: number): string {
  let from = 0;
  let to = token.length;
  for (let count = 0; count < start && token.startsWith(content, from); count++) from += content.length;
  for (let count = 0; count < stop && to - content.length >= from && token.startsWith(content, to - content.length); count++) to -= content.length;
  return token.slice(from, to);
}

/** GPT-2's bytes_to_unicode, inverted: the character each byte is written as → the byte. */
function byteLevelCharacters(): Map<number, number> {
  const bytes: number[] = [];
  for (let byte = 0x21; byte <= 0x7e; byte++) bytes.push(byte);
  for (let byte = 0xa1; byte <= 0xac; byte++) bytes.push(byte);
  for (let byte = 0xae; byte <= 0xff; byte++) bytes.push(byte);
  const characters = [...bytes];
  let extra = 0;
  for (let byte = 0; byte < 256; byte++) {
    if (!bytes.includes(byte)) {
      bytes.push(byte);
      characters.push(256 + extra++);
    }
  }
  return new Map(characters.map((character, index) => [character, bytes[index]!]));
}
