// The stream chunk fast path (no zod for SGLang's usual chunk shape) accepts and rejects exactly what the zod
// schema does, and the cached prefix digests equal the plain ones.
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { generateResponseSchema } from "../../contracts/sglang.ts";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { digestMessage, MessageDigests, prefixDigests } from "../../orchestrator/sessions/message-digest.ts";
import type { ChatMessage } from "../../contracts/chat.ts";

const base = { text: "", output_ids: [5], meta_info: { id: "r", completion_tokens: 1, output_token_logprobs: [[-0.5, 5, null]] } };
const variants: { name: string; meta: Record<string, unknown>; text?: unknown }[] = [
  { name: "plain", meta: {} },
  { name: "stop with string", meta: { finish_reason: { type: "stop", matched: "</s>" } } },
  { name: "stop with null", meta: { finish_reason: { type: "stop", matched: null } } },
  { name: "length", meta: { finish_reason: { type: "length", length: 3 } } },
  { name: "abort", meta: { finish_reason: { type: "abort", message: "paused", status_code: null, err_type: null } } },
  { name: "numeric weight version (zod transforms it)", meta: { weight_version: 7 } },
  { name: "unknown finish type", meta: { finish_reason: { type: "weird" } } },
  { name: "stop with object", meta: { finish_reason: { type: "stop", matched: {} } } },
  { name: "prompt_tokens null", meta: { prompt_tokens: null } },
  { name: "prompt_tokens fractional", meta: { prompt_tokens: 1.5 } },
  { name: "id number", meta: { id: 3 } },
  { name: "abort code string", meta: { finish_reason: { type: "abort", status_code: "499" } } },
  { name: "input log-probs", meta: { input_token_logprobs: [[null, 1, null]] } },
  { name: "text number", meta: {}, text: 4 },
  { name: "extra fields", meta: { spec_verify_ct: 0, e2e_latency: 0.1 } },
];

async function streamed(body: string): Promise<unknown> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(`data: ${body}\n\ndata: [DONE]\n\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const client = new SglangClient({ baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`, timeoutMs: 2000 });
  try {
    const out: unknown[] = [];
    for await (const part of client.generateStream({ input_ids: [1], sampling_params: {} })) out.push(part);
    return out[0];
  } catch (error) {
    return error;
  } finally {
    server.close();
  }
}

describe("stream chunk fast path", () => {
  it.each(variants)("agrees with generateResponseSchema: $name", async ({ meta, text }) => {
    const value = { ...base, ...(text === undefined ? {} : { text }), meta_info: { ...base.meta_info, ...meta } };
    const expected = generateResponseSchema.safeParse(value);
    const got = await streamed(JSON.stringify(value));
    if (expected.success) expect(got).toEqual(expected.data);
    else expect(got).toMatchObject({ code: "ENGINE_ERROR" });
  });
});

describe("cached message digests", () => {
  it("give the same message and prefix digests as the uncached functions", () => {
    const cache = new MessageDigests(16, 8); // tiny: exercises eviction
    const messages: ChatMessage[] = [
      { role: "system", content: "s".repeat(40) },
      { role: "user", content: "hello" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: '{"path": "."}' } }] },
      { role: "tool", content: "ok", tool_call_id: "call_1" },
      { role: "user", content: [{ type: "text", text: "again" }] },
      { role: "assistant", content: "done" },
    ];
    for (let round = 0; round < 3; round++) {
      const plain = messages.map(digestMessage);
      expect(messages.map((message) => cache.of(message))).toEqual(plain);
      expect(cache.prefixes(plain)).toEqual(prefixDigests(plain));
      expect(cache.prefixes(plain.slice(0, 3))).toEqual(prefixDigests(plain.slice(0, 3)));
    }
    // the same text under another role is another message
    expect(cache.of({ role: "user", content: "s".repeat(40) })).not.toBe(cache.of(messages[0]!));
  });
});
