// tool_choice "required" / a named function streamed to the official openai client in tokens mode: the calls come as
// tool_call deltas the way SGLang streams them (serving_chat.py:2345-2400@4ad990ba _process_tool_call_stream: the
// family's detector where a structural tag kept its markup, JsonArrayParser for a JSON-schema array), the name first
// and the arguments in pieces, whatever the flavour. The engine is a scripted /generate that sends a token per chunk.
import type { ServerResponse } from "node:http";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { Tool } from "../../contracts/chat.ts";
import { qwen3, startHarness } from "./harness.ts";
import { closedAfterEach, scriptedEngine, type GenerateBody } from "./scripted-engine.ts";

const READ: Tool = { type: "function", function: { name: "read", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } };
const LIST: Tool = { type: "function", function: { name: "list_files" } };

/** Sends `ids` a token per SSE chunk (completion_tokens cumulative, as SGLang counts), the last one a stop. */
function tokenByToken(ids: number[]): (body: GenerateBody, response: ServerResponse) => void {
  return (_body, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    ids.forEach((id, index) => {
      const finish = index === ids.length - 1 ? { type: "stop", matched: id } : null;
      response.write(`data: ${JSON.stringify({ text: "", output_ids: [id], meta_info: { id: "r", finish_reason: finish, weight_version: "v1", completion_tokens: index + 1, output_token_logprobs: [[-0.5, id, null]] } })}\n\n`);
    });
    response.end("data: [DONE]\n\n");
  };
}

/** What the engine writes under each flavour's grammar (fork: dce8b060's JSON array; upstream: 4ad990ba's structural tag keeps Qwen's markup). */
const OUTPUTS = {
  fork: '<think>\nopen it\n</think>\n\n[{"name": "read", "parameters": {"path": "notes/a.txt"}}]',
  upstream: '<think>\nopen it\n</think>\n\n<tool_call>\n{"name": "read", "arguments": {"path": "notes/a.txt"}}\n</tool_call>',
};

describe("tool_choice required / named streamed in tokens mode, read by the openai client", () => {
  const slots = closedAfterEach();

  for (const flavor of ["fork", "upstream"] as const) {
    it(`${flavor}: the call streams as tool_call deltas (id and name first, then the arguments in pieces), finish_reason tool_calls`, async () => {
      const { tokenizer } = await qwen3();
      const output = [...(await tokenizer.encode(OUTPUTS[flavor])), tokenizer.tokenId("<|im_end|>")!];
      const fake = scriptedEngine([tokenByToken(output)]);
      slots.engine = fake.server;
      const harness = (slots.harness = await startHarness({ script: () => "unused", policyUrl: await fake.start(), recipe: { engine: { kind: "rehearsal", slime: { flavor } } } }));
      const client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "any", maxRetries: 0 });
      const choices = ["required", { type: "function", function: { name: "read" } }] as const;
      for (const [turn, toolChoice] of choices.entries()) {
        const request = { model: "qwen3-4b", messages: [{ role: "user" as const, content: "open notes/a.txt" }], tools: [READ, LIST] as OpenAI.Chat.ChatCompletionTool[], tool_choice: toolChoice };
        const stream = await client.chat.completions.create({ ...request, stream: true }, { headers: { "x-session-id": `${flavor}-${turn}` } });
        const calls: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
        let content = "";
        let reasoning = "";
        let finish: string | null = null;
        for await (const chunk of stream) {
          const choice = chunk.choices[0];
          if (!choice) continue;
          calls.push(...(choice.delta.tool_calls ?? []));
          content += choice.delta.content ?? "";
          reasoning += (choice.delta as { reasoning_content?: string }).reasoning_content ?? "";
          finish = choice.finish_reason ?? finish;
        }
        expect(finish).toBe("tool_calls");
        expect(content).toBe("");
        expect(reasoning).toContain("open it");
        expect(calls[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), type: "function", function: { name: "read" } });
        const pieces = calls.slice(1).map((call) => call.function?.arguments ?? "");
        expect(calls.slice(1).every((call) => call.index === 0 && call.id === undefined && call.function?.name === undefined)).toBe(true);
        expect(pieces.length).toBeGreaterThan(2); // (streamed, not whole at the end)
        expect((calls[0]!.function?.arguments ?? "") + pieces.join("")).toBe('{"path": "notes/a.txt"}');
        const sent = fake.calls.at(-1)!.sampling_params;
        expect(Object.keys(sent).filter((key) => key === "json_schema" || key === "structural_tag")).toEqual([flavor === "fork" ? "json_schema" : "structural_tag"]);
      }
      // the SDK's own stream helper puts the same call together
      const runner = client.chat.completions.stream({ model: "qwen3-4b", messages: [{ role: "user", content: "open notes/a.txt" }], tools: [READ, LIST] as OpenAI.Chat.ChatCompletionTool[], tool_choice: "required" }, { headers: { "x-session-id": `${flavor}-helper` } });
      const final = await runner.finalChatCompletion();
      expect(final.choices[0]!.finish_reason).toBe("tool_calls");
      expect(final.choices[0]!.message.tool_calls?.map((call) => (call as { function: { name: string; arguments: string } }).function)).toMatchObject([{ name: "read", arguments: '{"path": "notes/a.txt"}' }]);
    });
  }
});
