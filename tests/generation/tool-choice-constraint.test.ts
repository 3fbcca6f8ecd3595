import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Tool } from "../../contracts/chat.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { createAnswerParser } from "../../lib/model/parsers/answer-parser.ts";
import { toolChoiceGrammar, toolChoiceSchema } from "../../orchestrator/generation/tool-choice-constraint.ts";
import { toolsToRender, type ToolChoice } from "../../lib/model/tool-choice.ts";
import constraints from "../fixtures/sglang-tool-choice/constraints.json" with { type: "json" };
import { postChat, qwen3, startHarness, waitFor } from "../proxy/harness.ts";
import { closedAfterEach, oneChunk, scriptedEngine } from "../proxy/scripted-engine.ts";

const READ: Tool = { type: "function", function: { name: "read", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } };
const LIST: Tool = { type: "function", function: { name: "list_files" } };
const TOOLS = [READ, LIST];

describe("tool_choice required / a named function: the grammar SGLang builds, per flavour and tool-call parser", () => {
  // (tests/fixtures/sglang-tool-choice/constraints.json: each case cites where SGLang builds it)
  for (const fact of constraints.cases) {
    const choiceName = typeof fact.toolChoice === "string" ? fact.toolChoice : "named";
    it(`${fact.flavor} ${fact.toolCallParser} ${choiceName}${fact.parallelToolCalls ? "" : " (parallel_tool_calls false)"}: ${fact.key}`, () => {
      const grammar = toolChoiceGrammar(constraints.tools as Tool[], fact.toolChoice as ToolChoice, { flavor: fact.flavor as "fork" | "upstream", parallelToolCalls: fact.parallelToolCalls, toolCallParser: fact.toolCallParser });
      expect(grammar?.key).toBe(fact.key);
      expect(JSON.parse(grammar!.value)).toEqual(fact.value);
    });
  }

  it("upstream: a legacy tag whose tools' $defs clash falls to json_schema (get_legacy_structural_tag throws, get_structure_constraint returns None): named goes on, required is refused", () => {
    const a: Tool = { type: "function", function: { name: "a", parameters: { type: "object", $defs: { File: { type: "string" } } } } };
    const b: Tool = { type: "function", function: { name: "b", parameters: { type: "object", $defs: { File: { type: "number" } } } } };
    const options = { flavor: "upstream" as const, parallelToolCalls: true, toolCallParser: "qwen" };
    expect(toolChoiceGrammar([a, b], { type: "function", function: { name: "a" } }, options)?.key).toBe("json_schema");
    expect(() => toolChoiceGrammar([a, b], "required", options)).toThrow(/multiple schemas/);
    // native tags do not check them (xgrammar's builder merges nothing)
    expect(toolChoiceGrammar([a, b], "required", { ...options, toolCallParser: "qwen3_coder" })?.key).toBe("structural_tag");
    expect(toolChoiceGrammar([a, b], "auto", options)).toBeNull();
  });
});

describe("tool_choice required / a named function: SGLang's constraint (function_call/utils.py get_json_schema_constraint)", () => {
  it("named: one item of that tool's schema; fork (dce8b060) always one call, upstream (4ad990ba) only without parallel calls", () => {
    const named = { type: "function" as const, function: { name: "read" } };
    const item = { properties: { name: { type: "string", enum: ["read"] }, parameters: READ.function.parameters }, required: ["name", "parameters"] };
    expect(toolChoiceSchema(TOOLS, named, { flavor: "fork", parallelToolCalls: true })).toEqual({ type: "array", minItems: 1, maxItems: 1, items: item });
    expect(toolChoiceSchema(TOOLS, named, { flavor: "upstream", parallelToolCalls: true })).toEqual({ type: "array", minItems: 1, items: item });
    expect(toolChoiceSchema(TOOLS, named, { flavor: "upstream", parallelToolCalls: false })).toEqual({ type: "array", minItems: 1, maxItems: 1, items: item });
    expect(toolChoiceSchema(TOOLS, { type: "function", function: { name: "absent" } }, { flavor: "fork", parallelToolCalls: true })).toBeNull();
  });

  it("required: any offered tool (parameters-less tools get an empty object), the tools' $defs merged", () => {
    const withDefinitions: Tool = { type: "function", function: { name: "write", parameters: { type: "object", properties: { file: { $ref: "#/$defs/File" } }, $defs: { File: { type: "string" } } } } };
    expect(toolChoiceSchema([READ, LIST, withDefinitions], "required", { flavor: "fork", parallelToolCalls: true })).toEqual({
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        anyOf: [
          { properties: { name: { type: "string", enum: ["read"] }, parameters: READ.function.parameters }, required: ["name", "parameters"] },
          { properties: { name: { type: "string", enum: ["list_files"] }, parameters: { type: "object", properties: {} } }, required: ["name", "parameters"] },
          { properties: { name: { type: "string", enum: ["write"] }, parameters: withDefinitions.function.parameters }, required: ["name", "parameters"] },
        ],
      },
      $defs: { File: { type: "string" } },
    });
    expect(toolChoiceSchema(TOOLS, "required", { flavor: "upstream", parallelToolCalls: false })).toMatchObject({ maxItems: 1 });
    expect(toolChoiceSchema(TOOLS, "auto", { flavor: "fork", parallelToolCalls: true })).toBeNull();
    const clash: Tool = { type: "function", function: { name: "other", parameters: { $defs: { File: { type: "number" } } } } };
    expect(() => toolChoiceSchema([withDefinitions, clash], "required", { flavor: "fork", parallelToolCalls: true })).toThrow(/multiple schemas/);
  });

  it("renders only a named tool (require_reasoning, per flavour: tests/model/parsers/thinking-mode.test.ts)", () => {
    expect(toolsToRender(TOOLS, { type: "function", function: { name: "list_files" } })).toEqual([LIST]);
    expect(toolsToRender(TOOLS, "required")).toEqual(TOOLS);
  });

  it("upstream: a structural tag keeps the family's markup, so the output is read by its own parser (serving_chat.py:1986-1996@4ad990ba)", () => {
    const { parser } = createAnswerParser({ parsers: { toolCallParser: "qwen", reasoningParser: "qwen3" }, tools: TOOLS, toolChoice: "required", startsInReasoning: false, flavor: "upstream" });
    for (const piece of '<think>\nread it\n</think>\n\n<tool_call>\n{"name":"read", "arguments":{"path": "a.txt"}}\n</tool_call>') parser.push(piece);
    parser.finish();
    expect(parser.message().tool_calls?.map((call) => call.function)).toEqual([{ name: "read", arguments: '{"path": "a.txt"}' }]);
    expect(parser.message().reasoning_content).toBe("\nread it\n");
    // glm45 has no structural tag at 4ad990ba: its forced output is the JSON array there too
    const glm = createAnswerParser({ parsers: { toolCallParser: "glm45", reasoningParser: "glm45" }, tools: TOOLS, toolChoice: "required", startsInReasoning: false, flavor: "upstream" }).parser;
    glm.push('[{"name": "read", "parameters": {"path": "a.txt"}}]');
    glm.finish();
    expect(glm.message().tool_calls?.map((call) => call.function)).toEqual([{ name: "read", arguments: '{"path": "a.txt"}' }]);
  });

  it("reads the JSON-schema-constrained output: reasoning, then the JSON array's calls with json.dumps arguments, streamed as they become certain; anything else stays content", () => {
    const read = (text: string, reasoningParser: string | null = "qwen3") => {
      const results = [[text], [...text]].map((pieces) => {
        const { parser } = createAnswerParser({ parsers: { toolCallParser: "qwen", reasoningParser }, tools: TOOLS, toolChoice: "required", startsInReasoning: false, flavor: "fork" });
        const pushed = pieces.flatMap((piece) => parser.push(piece));
        const deltas = [...pushed, ...parser.finish()];
        const message = parser.message();
        const sent = deltas.filter((delta) => delta.kind !== "reasoning").map((delta) => ("id" in delta ? { ...delta, id: "x" } : delta));
        return { pushed, sent, message: { ...message, tool_calls: message.tool_calls?.map((call) => call.function) }, calls: parser.hasToolCalls };
      });
      expect(results[1]!.message).toEqual(results[0]!.message);
      // what was sent adds up to the answer, whole or a character at a time
      for (const result of results) {
        const argumentsSent = (index: number) => result.sent.flatMap((delta) => (delta.kind === "tool-call-arguments" && delta.index === index ? [delta.text] : [])).join("");
        expect((result.message.tool_calls ?? []).map((call, index) => argumentsSent(index))).toEqual((result.message.tool_calls ?? []).map((call) => call.arguments));
        expect(result.sent.filter((delta) => delta.kind === "tool-call-start").map((delta) => (delta as { name: string }).name)).toEqual((result.message.tool_calls ?? []).map((call) => call.name));
      }
      return results;
    };
    const [whole, chars] = read('<think>\nThe path is a.txt.\n</think>\n\n[{"name": "read", "parameters": {"path":"a.txt"}}, {"name":"list_files","parameters":{}}]');
    expect(whole!.calls).toBe(true);
    expect(whole!.message.reasoning_content).toBe("The path is a.txt."); // (fork: edges trimmed)
    expect(whole!.message.content).toBeNull();
    expect(whole!.message.tool_calls).toEqual([
      { name: "read", arguments: '{"path": "a.txt"}' },
      { name: "list_files", arguments: "{}" },
    ]);
    expect(whole!.sent).toEqual([
      { kind: "tool-call-start", index: 0, id: "x", name: "read" },
      { kind: "tool-call-arguments", index: 0, text: '{"path": "a.txt"}' },
      { kind: "tool-call-start", index: 1, id: "x", name: "list_files" },
      { kind: "tool-call-arguments", index: 1, text: "{}" },
    ]);
    // a character at a time: the first call's name goes out once written, its path value in pieces, all before the end
    const pushedCalls = chars!.pushed.filter((delta) => delta.kind !== "reasoning");
    expect(pushedCalls[0]).toMatchObject({ kind: "tool-call-start", index: 0, name: "read" });
    expect(pushedCalls.filter((delta) => delta.kind === "tool-call-arguments" && delta.index === 0).length).toBeGreaterThan(3);
    expect(pushedCalls.some((delta) => delta.kind === "tool-call-start" && delta.index === 1)).toBe(true);
    // no reasoning parser: the array is the whole output; floats stay floats, non-ASCII as written
    expect(read('[{"name": "read", "parameters": {"path": "é.txt", "size": 1.0}}]', null)[0]!.message.tool_calls?.[0]?.arguments).toBe('{"path": "é.txt", "size": 1.0}');
    // cut short (max tokens): a call whose name was sent stays, with the arguments sent (never taken back)
    expect(read('[{"name": "read", "parameters": {"path": "a', null)[0]!.message).toEqual({ role: "assistant", content: null, tool_calls: [{ name: "read", arguments: '{"path": "a' }] });
    // no call started: content (SGLang keeps the text)
    expect(read('[{"name": "re', null)[0]!.message).toEqual({ role: "assistant", content: '[{"name": "re' });
    expect(read('{"name": "read"}', null)[0]!.message).toEqual({ role: "assistant", content: '{"name": "read"}' });
  });
});

describe("tool_choice required / named in tokens mode, through the proxy", () => {
  const slots = closedAfterEach();

  it("sends SGLang's json_schema and require_reasoning to /generate, renders only a named tool, and answers with the calls", async () => {
    const { tokenizer } = await qwen3();
    const output = [...(await tokenizer.encode('<think>\nread it\n</think>\n\n[{"name": "read", "parameters": {"path": "a.txt"}}]')), tokenizer.tokenId("<|im_end|>")!];
    const fake = scriptedEngine([oneChunk(output, "v1", "stop")]);
    slots.engine = fake.server;
    const harness = (slots.harness = await startHarness({ script: () => "unused", policyUrl: await fake.start() }));
    const named = { type: "function" as const, function: { name: "read" } };
    for (const [index, choice] of (["required", named] as const).entries()) {
      const answer = await postChat(harness.url, { messages: [{ role: "user", content: "open a.txt" }], tools: TOOLS, tool_choice: choice }, { "x-session-id": `choice-${index}` });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const choiceBody = (answer.body as { choices: { finish_reason: string; message: { content: string | null; tool_calls: { function: unknown }[] } }[] }).choices[0]!;
      expect(choiceBody.finish_reason).toBe("tool_calls");
      expect(choiceBody.message.tool_calls.map((call) => call.function)).toEqual([{ name: "read", arguments: '{"path": "a.txt"}' }]);
      const sent = fake.calls[index]!;
      expect(JSON.parse(sent.sampling_params.json_schema as string)).toEqual(toolChoiceSchema(TOOLS, choice, { flavor: "fork", parallelToolCalls: true }));
      expect(sent.require_reasoning).toBe(true);
      const prompt = await tokenizer.decode(sent.input_ids);
      expect(prompt).toContain('"name": "read"');
      if (choice === named) expect(prompt).not.toContain("list_files");
      else expect(prompt).toContain("list_files");
    }
    // "auto" sends no constraint
    await postChat(harness.url, { messages: [{ role: "user", content: "hi" }], tools: TOOLS, tool_choice: "auto" }, { "x-session-id": "auto" });
    expect(fake.calls[2]!.sampling_params).not.toHaveProperty("json_schema");
    expect(fake.calls[2]).not.toHaveProperty("require_reasoning");
  });

  it("upstream (4ad990ba): sends the qwen detector's structural tag with require_reasoning, answers from the Qwen markup, and continues a cut generation without the tag", async () => {
    const { tokenizer } = await qwen3();
    const output = [...(await tokenizer.encode('<think>\nread it\n</think>\n\n<tool_call>\n{"name":"read", "arguments":{"path": "a.txt"}}\n</tool_call>')), tokenizer.tokenId("<|im_end|>")!];
    const fake = scriptedEngine([oneChunk(output.slice(0, 6), "v1", "aborted"), oneChunk(output.slice(6), "v2", "stop")]);
    slots.engine = fake.server;
    const recipe = { engine: { kind: "rehearsal", slime: { flavor: "upstream" } } } as const;
    const harness = (slots.harness = await startHarness({ script: () => "unused", policyUrl: await fake.start(), recipe }));
    const answer = await postChat(harness.url, { messages: [{ role: "user", content: "open a.txt" }], tools: TOOLS, tool_choice: "required" }, { "x-session-id": "upstream" });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const choice = (answer.body as { choices: { finish_reason: string; message: { reasoning_content: string; tool_calls: { function: unknown }[] } }[] }).choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.tool_calls.map((call) => call.function)).toEqual([{ name: "read", arguments: '{"path": "a.txt"}' }]);
    expect(choice.message.reasoning_content).toBe("\nread it\n");
    const sent = fake.calls[0]!;
    expect(sent.sampling_params).not.toHaveProperty("json_schema");
    expect(JSON.parse(sent.sampling_params.structural_tag as string)).toMatchObject({ type: "structural_tag", triggers: ["<tool_call>"], at_least_one: true });
    expect(sent.require_reasoning).toBe(true);
    expect(fake.calls[1]!.sampling_params).not.toHaveProperty("structural_tag");
    expect(fake.calls[1]).not.toHaveProperty("require_reasoning");
  });

  it("require_reasoning follows the flavour: Qwen3-Thinking-2507's template read with qwen3 and enable_thinking false thinks under upstream (the template cannot turn it off) and not under fork (by the parser's name)", async () => {
    const qwen3Files = await loadTokenizerFiles("builtin:qwen3");
    const files = { ...qwen3Files, tokenizerConfig: { ...qwen3Files.tokenizerConfig, chat_template: readFileSync(new URL("../fixtures/chat-templates/Qwen3-Thinking-2507.jinja", import.meta.url), "utf8") } };
    const tokenizer = new ModelTokenizer(files);
    const model = { tokenizer, template: new ChatTemplate(files), eosTokenIds: [tokenizer.tokenId("<|im_end|>")!], parsers: { toolCallParser: "qwen", reasoningParser: "qwen3" } };
    const output = [...(await tokenizer.encode('ok\n</think>\n\n<tool_call>\n{"name": "read", "arguments": {"path": "a"}}\n</tool_call>')), tokenizer.tokenId("<|im_end|>")!];
    for (const flavor of ["upstream", "fork"] as const) {
      const fake = scriptedEngine([oneChunk(output, "v1", "stop")]);
      slots.engine = fake.server;
      const harness = (slots.harness = await startHarness({ script: () => "unused", policyUrl: await fake.start(), model, recipe: { engine: { kind: "rehearsal", slime: { flavor } } } }));
      const answer = await postChat(harness.url, { messages: [{ role: "user", content: "open a" }], tools: TOOLS, tool_choice: "required", chat_template_kwargs: { enable_thinking: false } }, { "x-session-id": flavor });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      if (flavor === "upstream") expect(fake.calls[0]!.require_reasoning).toBe(true);
      else expect(fake.calls[0]).not.toHaveProperty("require_reasoning");
      await harness.close();
      fake.server.closeAllConnections();
      fake.server.close();
      slots.harness = slots.engine = null;
    }
  });

  it("continues a constrained generation cut by the engine (a weight update) without the grammar, which cannot resume mid-way", async () => {
    const { tokenizer } = await qwen3();
    const output = [...(await tokenizer.encode('[{"name": "read", "parameters": {"path": "a.txt"}}]')), tokenizer.tokenId("<|im_end|>")!];
    const fake = scriptedEngine([oneChunk(output.slice(0, 4), "v1", "aborted"), oneChunk(output.slice(4), "v2", "stop")]);
    slots.engine = fake.server;
    const harness = (slots.harness = await startHarness({ script: () => "unused", policyUrl: await fake.start(), recipe: { model: { reasoning_parser: "none" } } }));
    const answer = await postChat(harness.url, { messages: [{ role: "user", content: "open a.txt" }], tools: TOOLS, tool_choice: "required" }, { "x-session-id": "cut" });
    expect((answer.body as { choices: { message: { tool_calls: { function: unknown }[] } }[] }).choices[0]!.message.tool_calls.map((call) => call.function)).toEqual([{ name: "read", arguments: '{"path": "a.txt"}' }]);
    expect(fake.calls).toHaveLength(2);
    expect(fake.calls[0]!.sampling_params).toHaveProperty("json_schema");
    expect(fake.calls[0]).not.toHaveProperty("require_reasoning"); // (no reasoning parser)
    expect(fake.calls[1]!.sampling_params).not.toHaveProperty("json_schema");
    expect(fake.calls[1]!.input_ids.slice(-4)).toEqual(output.slice(0, 4));
    // drawn under a grammar slime's recomputed log-probs know nothing of: recorded, and never trained
    expect(harness.events.find((event) => event.type === "turn-end")).toMatchObject({ offPolicy: true });
    await postChat(harness.url, { messages: [{ role: "user", content: "open a.txt" }, { role: "assistant", content: "ok" }, { role: "user", content: "next" }], tools: TOOLS }, { "x-session-id": "cut" });
    await waitFor(() => harness.closed.length >= 1);
    expect(harness.closed[0]!.sampling).toMatchObject({ onPolicy: false, constrained: "tool_choice required" });
  });

  it("refuses tools whose $defs clash under tool_choice required (SGLang refuses them too), before the engine sees anything", async () => {
    const harness = (slots.harness = await startHarness({ script: () => "fine" }));
    const clashing = [
      { type: "function", function: { name: "a", parameters: { type: "object", $defs: { File: { type: "string" } } } } },
      { type: "function", function: { name: "b", parameters: { type: "object", $defs: { File: { type: "number" } } } } },
    ];
    const answer = await postChat(harness.url, { messages: [{ role: "user", content: "x" }], tools: clashing, tool_choice: "required" });
    expect(answer.status).toBe(400);
    expect((answer.body.error as { message: string }).message).toMatch(/multiple schemas/);
    expect(harness.standin.state.counters.requests).toBe(0);
  });
});
