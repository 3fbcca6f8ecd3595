// Under a structural tag (upstream), a forced call's output without the family's markup that is a JSON array of
// {"name", "parameters"} is read as calls, as SGLang 4ad990ba's non-streamed _process_tool_calls reads it
// (serving_chat.py:1983-2066@4ad990ba); the proxy gives the same answer streamed, whole and through its endpoint.
import { describe, expect, it } from "vitest";
import type { Tool } from "../../../contracts/chat.ts";
import { createAnswerParser } from "../../../lib/model/parsers/answer-parser.ts";
import type { OutputDelta } from "../../../lib/model/parsers/output-delta.ts";
import { postChat, qwen3, startHarness } from "../../proxy/harness.ts";
import { closedAfterEach, oneChunk, scriptedEngine } from "../../proxy/scripted-engine.ts";

const READ: Tool = { type: "function", function: { name: "read", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } };
const LIST: Tool = { type: "function", function: { name: "list_files" } };
const TOOLS = [READ, LIST];
const ARRAY = '[{"name": "read", "parameters": {"path":"é.txt"}}, {"name":"list_files","parameters":{}}]';
const CALLS = [
  { name: "read", arguments: '{"path": "é.txt"}' },
  { name: "list_files", arguments: "{}" },
];

interface Read {
  content: string | null;
  reasoning: string | null | undefined;
  calls: { name: string; arguments: string }[] | undefined;
  hasToolCalls: boolean;
  /** What was sent, apart from reasoning: content text and each call's name and argument pieces, joined. */
  sentContent: string;
  sentCalls: { name: string; arguments: string }[];
}

/** The answer and what was streamed, whole and one character at a time (both must agree: one answer). */
function read(text: string, options: { toolCallParser: string; reasoningParser: string | null; toolChoice?: "required" | "auto" | { type: "function"; function: { name: string } }; flavor?: "fork" | "upstream" }): Read {
  const results = [[text], [...text]].map((pieces): Read => {
    const { parser } = createAnswerParser({
      parsers: { toolCallParser: options.toolCallParser, reasoningParser: options.reasoningParser },
      tools: TOOLS,
      toolChoice: options.toolChoice ?? "required",
      startsInReasoning: false,
      flavor: options.flavor ?? "upstream",
    });
    const deltas: OutputDelta[] = [...pieces.flatMap((piece) => parser.push(piece)), ...parser.finish()];
    const message = parser.message();
    const sentCalls: { name: string; arguments: string }[] = [];
    for (const delta of deltas) {
      if (delta.kind === "tool-call-start") sentCalls[delta.index] = { name: delta.name, arguments: "" };
      if (delta.kind === "tool-call-arguments") sentCalls[delta.index]!.arguments += delta.text;
    }
    return {
      content: message.content,
      reasoning: message.reasoning_content,
      calls: message.tool_calls?.map((call) => call.function),
      hasToolCalls: parser.hasToolCalls,
      sentContent: deltas.flatMap((delta) => (delta.kind === "content" ? [delta.text] : [])).join(""),
      sentCalls,
    };
  });
  expect(results[1]).toEqual(results[0]);
  return results[0]!;
}

describe("upstream, tool_choice required / named under a structural tag: a JSON array without markup is read as calls", () => {
  const families = [
    { toolCallParser: "qwen", reasoningParser: "qwen3", output: `<think>\nno tag\n</think>\n\n${ARRAY}`, reasoning: "\nno tag\n" },
    { toolCallParser: "qwen3_coder", reasoningParser: "qwen3", output: `<think>\nno tag\n</think>\n\n${ARRAY}\n`, reasoning: "\nno tag\n" },
    { toolCallParser: "deepseekv3", reasoningParser: "deepseek-r1", output: `no tag\n</think>${ARRAY}`, reasoning: "no tag\n" },
    { toolCallParser: "deepseekv31", reasoningParser: null, output: ` ${ARRAY}`, reasoning: undefined },
    { toolCallParser: "llama3", reasoningParser: null, output: ARRAY, reasoning: undefined },
    { toolCallParser: "gpt-oss", reasoningParser: "gpt-oss", output: `<|channel|>analysis<|message|>no tag<|end|><|start|>assistant<|channel|>final<|message|>${ARRAY}<|return|>`, reasoning: "no tag" },
  ];
  for (const family of families) {
    it(`${family.toolCallParser}: the calls (arguments json.dumps(parameters, ensure_ascii=False)), no content, the reasoning kept`, () => {
      const answer = read(family.output, family);
      expect(answer.calls).toEqual(CALLS);
      expect(answer.content).toBeNull();
      expect(answer.reasoning).toBe(family.reasoning);
      expect(answer.hasToolCalls).toBe(true);
      expect(answer.sentContent).toBe(""); // (held back while it might be the array)
      expect(answer.sentCalls).toEqual(CALLS);
    });
  }

  it("a named function too (its request renders only that tool; the names are not checked against the tools, as in SGLang)", () => {
    const answer = read('[{"name": "other", "parameters": {"a": 1.0}}]', { toolCallParser: "qwen", reasoningParser: null, toolChoice: { type: "function", function: { name: "read" } } });
    expect(answer.calls).toEqual([{ name: "other", arguments: '{"a": 1.0}' }]);
  });

  it("anything else stays content, sent as it was (text, JSON that is no such array, text after the array, a call's markup)", () => {
    const options = { toolCallParser: "qwen", reasoningParser: null };
    for (const text of ["Sure, reading it.", "  [1, 2]", '[{"name": "read"}]', '{"name": "read", "parameters": {}}', `${ARRAY} done`, "\n\n", '[{"name": "read", "parameters": {"path": "a'] as const) {
      const answer = read(text, options);
      expect(answer.calls).toBeUndefined();
      expect(answer.content).toBe(text);
      expect(answer.sentContent).toBe(text);
    }
    // the family's markup is read by the family's parser, as SGLang's has_tool_call sends it there
    const marked = read('<tool_call>\n{"name": "read", "arguments": {"path": "a"}}\n</tool_call>', options);
    expect(marked.calls).toEqual([{ name: "read", arguments: '{"path": "a"}' }]);
    // content before the markup is sent before the call, as without the fallback
    const before = read('[1]<tool_call>\n{"name": "read", "arguments": {"path": "a"}}\n</tool_call>', options);
    expect(before).toMatchObject({ content: "[1]", sentContent: "[1]", calls: [{ name: "read", arguments: '{"path": "a"}' }] });
    // a marker inside the array (has_tool_call holds): no fallback
    const deepseek = read('[{"name": "read", "parameters": {"path": "<｜tool▁calls▁begin｜>"}}]', { toolCallParser: "deepseekv3", reasoningParser: null });
    expect(deepseek.calls).toBeUndefined();
  });

  it("only where SGLang has it: not for tool_choice auto (no call forced: the array is content), not under fork (the JSON schema's reader)", () => {
    const auto = read(ARRAY, { toolCallParser: "qwen", reasoningParser: null, toolChoice: "auto" });
    expect(auto).toMatchObject({ content: ARRAY, calls: undefined, sentContent: ARRAY });
    expect(read(ARRAY, { toolCallParser: "qwen", reasoningParser: null, flavor: "fork" }).calls).toEqual(CALLS);
  });
});

describe("through the proxy (upstream): an output the structural tag did not shape", () => {
  const slots = closedAfterEach();

  it("a named tool whose tools' $defs clash gets SGLang's json_schema, and its JSON array answers as calls, streamed and not", async () => {
    const { tokenizer } = await qwen3();
    const a: Tool = { type: "function", function: { name: "a", parameters: { type: "object", properties: { f: { $ref: "#/$defs/File" } }, $defs: { File: { type: "string" } } } } };
    const b: Tool = { type: "function", function: { name: "b", parameters: { type: "object", $defs: { File: { type: "number" } } } } };
    const output = [...(await tokenizer.encode('<think>\nok\n</think>\n\n[{"name": "a", "parameters": {"f": "x.txt"}}]')), tokenizer.tokenId("<|im_end|>")!];
    const fake = scriptedEngine([oneChunk(output, "v1", "stop"), oneChunk(output, "v1", "stop")]);
    slots.engine = fake.server;
    const recipe = { engine: { kind: "rehearsal", slime: { flavor: "upstream" } } } as const;
    const harness = (slots.harness = await startHarness({ script: () => "unused", policyUrl: await fake.start(), recipe }));
    const body = { messages: [{ role: "user", content: "open x.txt" }], tools: [a, b], tool_choice: { type: "function", function: { name: "a" } } };
    const answer = await postChat(harness.url, body, { "x-session-id": "fallback" });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(fake.calls[0]!.sampling_params).toHaveProperty("json_schema");
    const choice = (answer.body as { choices: { finish_reason: string; message: { content: string | null; reasoning_content: string; tool_calls: { function: unknown }[] } }[] }).choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    expect(choice.message.reasoning_content).toBe("\nok\n");
    expect(choice.message.tool_calls.map((call) => call.function)).toEqual([{ name: "a", arguments: '{"f": "x.txt"}' }]);

    const streamed = await fetch(`${harness.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-session-id": "fallback-stream" },
      body: JSON.stringify({ ...body, stream: true }),
    });
    const chunks = (await streamed.text())
      .split("\n")
      .filter((line) => line.startsWith("data: {"))
      .map((line) => JSON.parse(line.slice(6)) as { choices: { delta: { content?: string | null; tool_calls?: { function?: { name?: string; arguments?: string } }[] }; finish_reason: string | null }[] });
    const deltas = chunks.flatMap((chunk) => chunk.choices);
    expect(deltas.map((choice) => choice.delta.content ?? "").join("")).toBe("");
    expect(deltas.flatMap((choice) => choice.delta.tool_calls ?? []).map((call) => call.function?.name ?? "").join("")).toBe("a");
    expect(deltas.flatMap((choice) => choice.delta.tool_calls ?? []).map((call) => call.function?.arguments ?? "").join("")).toBe('{"f": "x.txt"}');
    expect(deltas.at(-1)!.finish_reason).toBe("tool_calls");
  });
});
