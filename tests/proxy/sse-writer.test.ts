// ChunkWriter's bytes: every event is `data: ` + exactly JSON.stringify of the chunk OpenAI (and SGLang) send, key
// order included, then a blank line; the stream ends with [DONE]. A fake ServerResponse records what is written.
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { ChunkWriter } from "../../orchestrator/proxy/sse-writer.ts";

class RecordingResponse extends EventEmitter {
  writableEnded = false;
  destroyed = false;
  status = 0;
  headers: Record<string, string> = {};
  readonly written: string[] = [];
  writeHead(status: number, headers: Record<string, string>): this {
    this.status = status;
    this.headers = headers;
    return this;
  }
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
  end(text?: string): this {
    if (text !== undefined) this.written.push(text);
    this.writableEnded = true;
    this.emit("close");
    return this;
  }
}

const ID = 'chatcmpl-"quoted"\u2028';
const MODEL = "qwen3-4b \\ ünïcode";

function chunkJson(created: number, delta: unknown, logprobs: unknown, finishReason: string | null): string {
  return JSON.stringify({ id: ID, object: "chat.completion.chunk", created, model: MODEL, choices: [{ index: 0, delta, logprobs, finish_reason: finishReason }] });
}

describe("ChunkWriter", () => {
  it("writes each chunk as JSON.stringify of the OpenAI chunk, byte for byte, role chunk first and [DONE] last", () => {
    const response = new RecordingResponse();
    const writer = new ChunkWriter(response as unknown as ServerResponse, ID, MODEL, { "x-session-id": "s-1" });
    writer.deltas([
      { kind: "reasoning", text: "think \"hard\"\n" },
      { kind: "content", text: "Sure, 世界 😀" },
      { kind: "tool-call-start", index: 0, id: "call_1", name: "read" },
      { kind: "tool-call-arguments", index: 0, text: '{"path": "a\\b"}' },
    ]);
    const logprob = { token: "x", logprob: -0.5, bytes: [120], top_logprobs: [{ token: "y", logprob: -1, bytes: [121] }] };
    writer.logprobs([logprob]);
    writer.deltas([{ kind: "content", text: "x" }]);
    writer.finish("stop", { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });

    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toBe("text/event-stream");
    expect(response.headers["x-session-id"]).toBe("s-1");
    const created = (JSON.parse(response.written[0]!.slice(6)) as { created: number }).created;
    expect(Number.isInteger(created)).toBe(true);
    const expected = [
      chunkJson(created, { role: "assistant", content: "" }, null, null),
      chunkJson(created, { reasoning_content: 'think "hard"\n' }, null, null),
      chunkJson(created, { content: "Sure, 世界 😀" }, null, null),
      chunkJson(created, { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: "" } }] }, null, null),
      chunkJson(created, { tool_calls: [{ index: 0, function: { arguments: '{"path": "a\\b"}' } }] }, null, null),
      chunkJson(created, { content: "x" }, { content: [logprob] }, null),
      chunkJson(created, {}, null, "stop"),
      JSON.stringify({ id: ID, object: "chat.completion.chunk", created, model: MODEL, choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }),
    ].map((json) => `data: ${json}\n\n`);
    expect(response.written).toEqual([...expected, "data: [DONE]\n\n"]);
  });

  it("sends log-probs still pending on the finish chunk", () => {
    const response = new RecordingResponse();
    const writer = new ChunkWriter(response as unknown as ServerResponse, ID, MODEL, {});
    writer.start();
    const logprob = { token: "<|im_end|>", logprob: -0.01, bytes: [60, 124], top_logprobs: [] };
    writer.logprobs([logprob]);
    writer.finish("length", null);
    const created = (JSON.parse(response.written[0]!.slice(6)) as { created: number }).created;
    expect(response.written.slice(1)).toEqual([`data: ${chunkJson(created, {}, { content: [logprob] }, "length")}\n\n`, "data: [DONE]\n\n"]);
  });
});
