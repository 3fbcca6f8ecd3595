// The SGLang facts the parsers' comments point at (tests/fixtures/sglang-parsers/citations.json: what, and where at
// which commit), held against the code, so a fact that changes on one side fails here instead of going stale.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Tool } from "../../../contracts/chat.ts";
import { createAnswerParser } from "../../../lib/model/parsers/answer-parser.ts";
import { CALL_MARKERS } from "../../../lib/model/parsers/json-fallback-calls.ts";
import { constrainsNatively, structuralTagFor, structuralTagKind } from "../../../lib/model/parsers/structural-tag.ts";
import { requiresReasoning } from "../../../lib/model/parsers/thinking-mode.ts";
import { reasoningToggleOf, type ReasoningToggle } from "../../../lib/model/reasoning-toggle.ts";

interface Citations {
  call_markers: { markers: Record<string, { strings: string[]; where: string }> };
  structural_tag: {
    legacy: Record<string, { begin: string; end: string; trigger: string; where: string }>;
    native: Record<string, { model: string; where: string }>;
    none: Record<string, string>;
  };
  reasoning_defaults: { defaults: Record<string, { default: "enable_thinking" | "explicit_thinking" | "always"; where: string }> };
  fork_thinking: { enable_thinking_parsers: string[]; explicit_thinking_parsers: string[] };
  reasoning_toggle: { where: Record<string, string>; examples: { template: string; toggle: ReasoningToggle | null }[] };
}

const facts = JSON.parse(readFileSync(new URL("../../fixtures/sglang-parsers/citations.json", import.meta.url), "utf8")) as Citations;
const READ: Tool = { type: "function", function: { name: "read", parameters: { type: "object", properties: { path: { type: "string" } } } } };

describe("SGLang's facts the parsers mirror (citations.json)", () => {
  it("every fact names where it is, at a commit", () => {
    const wheres = [
      ...Object.values(facts.call_markers.markers).map((entry) => entry.where),
      ...Object.values(facts.structural_tag.legacy).map((entry) => entry.where),
      ...Object.values(facts.structural_tag.native).map((entry) => entry.where),
      ...Object.values(facts.reasoning_defaults.defaults).map((entry) => entry.where),
      ...Object.values(facts.reasoning_toggle.where),
    ];
    for (const where of wheres) expect(where).toMatch(/^[\w/.]+\.py:[\d,-]+@(4ad990ba|dce8b060)\b/);
  });

  it("call_markers: what each detector's has_tool_call looks for", () => {
    expect(CALL_MARKERS).toEqual(Object.fromEntries(Object.entries(facts.call_markers.markers).map(([parser, entry]) => [parser, entry.strings])));
  });

  it("structural_tag: the legacy tag from each detector's structure_info, the native ones, none for glm45, none under fork", () => {
    for (const [parser, info] of Object.entries(facts.structural_tag.legacy)) {
      expect(structuralTagKind(parser), parser).toBe("legacy");
      const structure = { begin: info.begin.replace("NAME", "read"), schema: {}, end: info.end };
      expect(structuralTagFor(parser, [READ], null), parser).toEqual({ type: "structural_tag", structures: [structure], triggers: [info.trigger], at_least_one: true });
    }
    for (const parser of Object.keys(facts.structural_tag.native)) expect(structuralTagKind(parser), parser).toBe("native");
    for (const parser of Object.keys(facts.structural_tag.none)) expect([structuralTagKind(parser), structuralTagFor(parser, [READ], null)], parser).toEqual([null, null]);
    for (const parser of [...Object.keys(facts.structural_tag.legacy), ...Object.keys(facts.structural_tag.native)]) {
      expect([constrainsNatively(parser, "upstream"), constrainsNatively(parser, "fork")], parser).toEqual([true, false]);
    }
  });

  it("reasoning_defaults: upstream, with no toggle in the template, the reasoning parser's default decides", () => {
    const thinks = (reasoningParser: string, kwargs: Record<string, unknown>) =>
      requiresReasoning({ chat_template_kwargs: kwargs }, { reasoningParser, flavor: "upstream", templateToggle: null });
    for (const [parser, { default: mode }] of Object.entries(facts.reasoning_defaults.defaults)) {
      const answers = [thinks(parser, {}), thinks(parser, { enable_thinking: false }), thinks(parser, { thinking: true })];
      const expected = { enable_thinking: [true, false, true], explicit_thinking: [false, false, true], always: [true, true, true] }[mode];
      expect(answers, parser).toEqual(expected);
    }
  });

  it("reasoning_toggle: the template's toggle by the first rule that holds", () => {
    for (const { template, toggle } of facts.reasoning_toggle.examples) expect(reasoningToggleOf(template), template).toEqual(toggle);
  });

  it("fork_thinking: by the reasoning parser's name", () => {
    const thinks = (reasoningParser: string | null, kwargs: Record<string, unknown>) =>
      requiresReasoning({ chat_template_kwargs: kwargs }, { reasoningParser, flavor: "fork", templateToggle: null });
    expect(thinks(null, {})).toBe(false);
    for (const parser of facts.fork_thinking.enable_thinking_parsers) expect([thinks(parser, {}), thinks(parser, { enable_thinking: false })], parser).toEqual([true, false]);
    for (const parser of facts.fork_thinking.explicit_thinking_parsers) expect([thinks(parser, {}), thinks(parser, { thinking: true })], parser).toEqual([false, true]);
    expect(thinks("deepseek-r1", { enable_thinking: false, thinking: false })).toBe(true);
  });

  it("fork_edges: the fork trims content only with a reasoning parser", () => {
    const content = (reasoningParser: string | null) => {
      const { parser } = createAnswerParser({ parsers: { toolCallParser: null, reasoningParser }, tools: [], startsInReasoning: false, flavor: "fork" });
      parser.push("  Hi there \n");
      parser.finish();
      return parser.message().content;
    };
    expect([content(null), content("qwen3")]).toEqual(["  Hi there \n", "Hi there"]);
  });

  it("qwen3_coder_fork: names stripped, values by _safe_val, calls to tools not offered dropped", () => {
    const calls = (output: string) => {
      const { parser } = createAnswerParser({ parsers: { toolCallParser: "qwen3_coder", reasoningParser: null }, tools: [READ], startsInReasoning: false, flavor: "fork" });
      parser.push(output);
      parser.finish();
      return (parser.message().tool_calls ?? []).map((call) => call.function);
    };
    const call = (name: string) => `<tool_call>\n<function=${name}>\n<parameter= path >\n&lt;a&gt;\n</parameter>\n</function>\n</tool_call>`;
    expect(calls(call(" read "))).toEqual([{ name: "read", arguments: '{"path": "<a>"}' }]);
    expect(calls(call("write"))).toEqual([]);
  });
});
