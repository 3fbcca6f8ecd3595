// Tool calls streamed name first and then argument by argument, for every family's markup (DeepSeek V3/V3.1, Llama 3,
// Qwen3-Coder, GLM-4.5, gpt-oss harmony): seeded random well-formed outputs cut at random places (one character at a
// time too) give the same calls, content and reasoning as the output read in one piece, and each call's argument
// deltas add up to exactly its recorded arguments. Then the rule for when the final parse disagrees with what was sent.
import { describe, expect, it } from "vitest";
import { HarmonyParser } from "../../../lib/model/parsers/harmony-parser.ts";
import type { OutputDelta } from "../../../lib/model/parsers/output-delta.ts";
import { OutputParser } from "../../../lib/model/parsers/output-parser.ts";
import { DEEPSEEK_V3, DEEPSEEK_V31 } from "../../../lib/model/parsers/tool-formats/deepseek.ts";
import { GLM45 } from "../../../lib/model/parsers/tool-formats/glm45.ts";
import { LLAMA3 } from "../../../lib/model/parsers/tool-formats/llama3.ts";
import { QWEN3_CODER } from "../../../lib/model/parsers/tool-formats/qwen3-coder.ts";
import type { ToolFormat } from "../../../lib/model/parsers/tool-formats/tool-format.ts";
import { seededRandom, type SeededRandom } from "../../support/seeded-random.ts";
import { coderOutput, deepseekOutput, DS_CALL_V3, DS_CALL_V31, glmOutput, harmonyOutput, llamaOutput, TOOLS } from "../../support/tool-call-outputs.ts";

type Parser = OutputParser | HarmonyParser;

interface Streamed {
  deltas: OutputDelta[];
  message: ReturnType<Parser["message"]>;
}

function run(make: () => Parser, pieces: readonly string[]): Streamed {
  const parser = make();
  const deltas = pieces.flatMap((piece) => parser.push(piece));
  deltas.push(...parser.finish());
  return { deltas, message: parser.message() };
}

/** The message without the random ids. */
const withoutIds = (message: Streamed["message"]) => ({ ...message, tool_calls: message.tool_calls?.map((call) => call.function) });

function cut(random: SeededRandom, text: string, most: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    const length = 1 + random.below(most);
    pieces.push(text.slice(at, at + length));
    at += length;
  }
  return pieces;
}

/**
 * What the client assembles from the deltas equals the record, every call's name came before its arguments, and a
 * call's arguments all came before the next call started (the Responses and Messages APIs' items rely on it).
 */
function expectConsistent(streamed: Streamed, context: string): void {
  const calls = streamed.message.tool_calls ?? [];
  const indexes = streamed.deltas.flatMap((delta) => (delta.kind === "tool-call-start" || delta.kind === "tool-call-arguments" ? [delta.index] : []));
  expect(indexes, context).toEqual([...indexes].sort((left, right) => left - right));
  const starts = streamed.deltas.filter((delta) => delta.kind === "tool-call-start");
  expect(starts.map((delta) => [delta.index, delta.id, delta.name]), context).toEqual(calls.map((call, index) => [index, call.id, call.function.name]));
  for (const [index, call] of calls.entries()) {
    const at = streamed.deltas.findIndex((delta) => delta.kind === "tool-call-start" && delta.index === index);
    const args = streamed.deltas.filter((delta, position) => delta.kind === "tool-call-arguments" && delta.index === index && (expect(position, context).toBeGreaterThan(at), true));
    expect(args.map((delta) => (delta as { text: string }).text).join(""), context).toBe(call.function.arguments);
  }
  const text = (kind: "content" | "reasoning") => streamed.deltas.filter((delta) => delta.kind === kind).map((delta) => (delta as { text: string }).text).join("");
  expect(text("content"), context).toBe(streamed.message.content ?? "");
  expect(text("reasoning"), context).toBe(streamed.message.reasoning_content ?? "");
}

const outputParser = (format: ToolFormat) => () => new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true, toolFormat: format, tools: TOOLS });
const harmonyParser = () => new HarmonyParser({ toolCalls: true, tools: TOOLS });

const FAMILIES: [string, () => Parser, (random: SeededRandom) => string][] = [
  ["deepseekv3", outputParser(DEEPSEEK_V3), (random) => deepseekOutput(random, DS_CALL_V3)],
  ["deepseekv31", outputParser(DEEPSEEK_V31), (random) => deepseekOutput(random, DS_CALL_V31)],
  ["llama3", outputParser(LLAMA3), llamaOutput],
  ["qwen3_coder", outputParser(QWEN3_CODER), coderOutput],
  ["glm45", outputParser(GLM45), glmOutput],
  ["gpt-oss", harmonyParser, harmonyOutput],
];

describe("tool calls streamed argument by argument", () => {
  for (const [family, make, output] of FAMILIES) {
    it(`${family}: random outputs in random pieces give the whole parse's calls, content and order, deltas adding up to the record`, () => {
      const random = seededRandom(family.length * 7919);
      let calls = 0;
      for (let round = 0; round < 120; round++) {
        const text = output(random);
        const whole = run(make, [text]);
        expectConsistent(whole, `whole: ${JSON.stringify(text)}`);
        calls += whole.message.tool_calls?.length ?? 0;
        for (const pieces of [[...text], cut(random, text, 3), cut(random, text, 12)]) {
          const context = JSON.stringify(pieces);
          const streamed = run(make, pieces);
          expectConsistent(streamed, context);
          expect(withoutIds(streamed.message), context).toEqual(withoutIds(whole.message));
        }
      }
      expect(calls).toBeGreaterThan(120); // (well-formed outputs: calls to offered tools parse)
    });
  }
});

/** One call per family, with the text that closes its markup. */
const EXAMPLES: [string, () => Parser, string, string][] = [
  ["deepseekv3", outputParser(DEEPSEEK_V3), `<｜tool▁calls▁begin｜>${DS_CALL_V3("search", '{"query":"café \\u00e9t\\u00e9","limit":10,"exact":true}')}`, "<｜tool▁calls▁end｜>"],
  ["deepseekv31", outputParser(DEEPSEEK_V31), `<｜tool▁calls▁begin｜>${DS_CALL_V31("get_weather", '{"city": "Paris", "days": 2.0}')}`, "<｜tool▁calls▁end｜>"],
  ["llama3", outputParser(LLAMA3), '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo", "days": 3}}', ""],
  ["qwen3_coder", outputParser(QWEN3_CODER), "<tool_call>\n<function=search>\n<parameter=query>\nsushi\n</parameter>\n<parameter=limit>\n5\n</parameter>\n</function>\n", "</tool_call>"],
  ["glm45", outputParser(GLM45), "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>北京</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n", "</tool_call>"],
  ["gpt-oss", harmonyParser, '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Tokyo","days":2}', "<|call|>"],
];

describe("name first, then arguments as they become certain", () => {
  for (const [family, make, open, close] of EXAMPLES) {
    it(`${family}: the name and arguments in pieces before the markup closes`, () => {
      const parser = make();
      const early = [...open].flatMap((character) => parser.push(character));
      const late = [...parser.push(close), ...parser.finish()];
      const args = (deltas: OutputDelta[]) => deltas.filter((delta) => delta.kind === "tool-call-arguments").map((delta) => (delta as { text: string }).text);
      expect(early[0]).toMatchObject({ kind: "tool-call-start", index: 0 });
      expect(args(early).length).toBeGreaterThan(1);
      expect([...args(early), ...args(late)].join("")).toBe(parser.message().tool_calls![0]!.function.arguments);
      if (process.env.SHOW_STREAMED) console.log(family, JSON.stringify([...early, ...late].map((delta) => (delta.kind === "tool-call-start" ? `start ${delta.name}` : (delta as { text: string }).text))));
    });
  }
});

describe("a started call is never taken back (streamed-calls.ts)", () => {
  const streamed = (make: () => Parser, text: string) => {
    const result = run(make, [...text]);
    expectConsistent(result, JSON.stringify(text));
    return { content: result.message.content, calls: (result.message.tool_calls ?? []).map((call) => call.function) };
  };
  const v31 = (args: string) => `Sure.<｜tool▁calls▁begin｜>${DS_CALL_V31("get_weather", args)}<｜tool▁calls▁end｜>`;

  it("a repeated key: the final arguments' remainder when they start with what was sent, else the arguments as sent", () => {
    expect(streamed(outputParser(DEEPSEEK_V31), v31('{"city": "A", "city": "A"}'))).toEqual({ content: "Sure.", calls: [{ name: "get_weather", arguments: '{"city": "A"}' }] });
    expect(streamed(outputParser(DEEPSEEK_V31), v31('{"city": "A", "days": 1, "city": "B"}'))).toEqual({ content: "Sure.", calls: [{ name: "get_weather", arguments: '{"city": "A", "days": 1' }] });
    // (whole, Python's reading: the first position, the last value)
    expect(run(outputParser(DEEPSEEK_V31), [v31('{"city": "A", "days": 1, "city": "B"}')]).message.tool_calls![0]!.function.arguments).toBe('{"city": "B", "days": 1}');
    const glm = "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>A</arg_value><arg_key>city</arg_key><arg_value>B</arg_value></tool_call>";
    expect(streamed(outputParser(GLM45), glm)).toEqual({ content: null, calls: [{ name: "get_weather", arguments: '{"city": "A"' }] });
  });

  it("markup that finally does not parse: the started call keeps what was sent, and the markup does not become content", () => {
    expect(streamed(outputParser(DEEPSEEK_V3), `Sure.<｜tool▁calls▁begin｜>${DS_CALL_V3("get_weather", '{"city": "A", oops}')}<｜tool▁calls▁end｜>`)).toEqual({ content: "Sure.", calls: [{ name: "get_weather", arguments: '{"city": "A"' }] });
    expect(streamed(outputParser(LLAMA3), '{"name": "get_weather", "parameters": {"city": "Oslo"}')).toEqual({ content: null, calls: [{ name: "get_weather", arguments: '{"city": "Oslo"}' }] });
    expect(streamed(outputParser(GLM45), "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Oslo</arg_value>")).toEqual({ content: null, calls: [{ name: "get_weather", arguments: '{"city": "Oslo"' }] });
    expect(streamed(harmonyParser, '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|end|>')).toEqual({ content: null, calls: [{ name: "get_weather", arguments: '{"city": "Oslo"}' }] });
  });

  it("a body that never shows a JSON object starts no call: it stays content (DeepSeek) or is dropped (harmony), as whole", () => {
    const broken = `Trying.<｜tool▁calls▁begin｜>${DS_CALL_V3("get_weather", "{not json")}<｜tool▁calls▁end｜>`;
    expect(streamed(outputParser(DEEPSEEK_V3), broken)).toEqual({ content: broken, calls: [] });
    expect(streamed(harmonyParser, "<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{oops<|call|>")).toEqual({ content: "", calls: [] });
  });
});

describe("a client stop string inside a call", () => {
  // The engine ends the output at a client stop string (sent because of no_stop_trim) and finish() leaves it out; the
  // arguments must not have streamed it already: it is held back while it may still match, as in content.
  const STOP = "Oslo";
  const CASES: [string, (stop: string[]) => Parser, string][] = [
    ["deepseekv3", (stop) => new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true, toolFormat: DEEPSEEK_V3, tools: TOOLS, stop }), `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n\`\`\`json\n{"days": 2, "city": "Oslo`],
    ["deepseekv31", (stop) => new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true, toolFormat: DEEPSEEK_V31, tools: TOOLS, stop }), `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"days": 2, "city": "Oslo`],
    ["llama3", (stop) => new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true, toolFormat: LLAMA3, tools: TOOLS, stop }), '<|python_tag|>{"name": "get_weather", "parameters": {"days": 2, "city": "Oslo'],
    ["qwen25", (stop) => new OutputParser({ reasoning: false, startInReasoning: false, toolCalls: true, tools: TOOLS, stop }), '<tool_call>\n{"name": "get_weather", "arguments": {"days": 2, "city": "Oslo'],
    ["gpt-oss", (stop) => new HarmonyParser({ toolCalls: true, tools: TOOLS, stop }), '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"days": 2, "city": "Oslo'],
  ];
  for (const [family, make, text] of CASES) {
    it(`${family}: the stop string is neither streamed nor recorded in the arguments`, () => {
      for (const pieces of [[text], [...text], [text.slice(0, -2), text.slice(-2)]]) {
        const parser = make([STOP]);
        const deltas = [...pieces.flatMap((piece) => parser.push(piece)), ...parser.finish(STOP)];
        const streamed = { deltas, message: parser.message() };
        expectConsistent(streamed, JSON.stringify(pieces));
        const args = (streamed.message.tool_calls ?? []).map((call) => call.function.arguments).join("");
        expect(args, JSON.stringify(pieces)).not.toContain(STOP);
        expect(args.startsWith('{"days": 2'), JSON.stringify(pieces)).toBe(true);
      }
    });
  }
});
