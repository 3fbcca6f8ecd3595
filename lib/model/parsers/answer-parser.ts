// Which parser reads a turn's decoded output: from SGLang's parser names (the recipe's or the family's), the request's
// tools and tool_choice, whether the prompt opened the reasoning, and which SGLang's parsing the plan's slime flavour
// has (fork or upstream). Ignores tokens and how the deltas are sent.
import type { ChatRequest, Tool } from "../../../contracts/chat.ts";
import { HarmonyParser } from "./harmony-parser.ts";
import { JsonArrayCalls } from "./json-array-calls.ts";
import { JsonFallbackCalls } from "./json-fallback-calls.ts";
import { OutputParser } from "./output-parser.ts";
import { forcesToolCall } from "../tool-choice.ts";
import { constrainsNatively } from "./structural-tag.ts";
import { reasoningFor, toolFormatFor } from "./tool-formats/tool-formats.ts";

export interface AnswerParserSettings {
  /** SGLang's --tool-call-parser and --reasoning-parser names (null: none). */
  parsers: { toolCallParser: string | null; reasoningParser: string | null };
  tools: readonly Tool[];
  /**
   * Tool calls are parsed unless tool_choice is "none"; "required" or a named function (with tools): the output was
   * constrained (tool-choice-constraint.ts) to the family's own markup by a structural tag (upstream, all but glm45:
   * read as any output, and a JSON array without the markup as calls: JsonFallbackCalls) or to a JSON array of calls
   * (read by JsonArrayCalls after the reasoning).
   */
  toolChoice?: ChatRequest["tool_choice"];
  stop?: readonly string[];
  /** The generation prompt already opened <think>. */
  startsInReasoning: boolean;
  /**
   * engine.slime.flavor: whose SGLang the proxy parses like. fork: reasoning runs to </think> and the edges of
   * reasoning and content are trimmed; upstream: a <tool_call> ends the reasoning too, and
   * whitespace is kept as the model wrote it.
   */
  flavor: "fork" | "upstream";
}

export type AnswerParser = OutputParser | HarmonyParser | JsonArrayCalls | JsonFallbackCalls;

/** Whether the generation prompt opened the reasoning (startsInReasoning): its last assistant turn has an unclosed <think>. */
export function endsInsideReasoning(prompt: string): boolean {
  const tail = prompt.slice(-200);
  const opening = tail.lastIndexOf("<|im_start|>assistant");
  const generation = opening >= 0 ? tail.slice(opening) : tail;
  return generation.lastIndexOf("<think>") > generation.lastIndexOf("</think>");
}

/** The parser for one turn, and whether it reads harmony (gpt-oss: the decoded text must keep special tokens). */
export function createAnswerParser(settings: AnswerParserSettings): { parser: AnswerParser; harmony: boolean } {
  const { parsers, tools, stop } = settings;
  const toolFormat = parsers.toolCallParser === null ? null : toolFormatFor(parsers.toolCallParser, settings.flavor);
  const reasoning = parsers.reasoningParser === null ? null : reasoningFor(parsers.reasoningParser);
  // (forced under a JSON schema: whatever the family's markup, the engine wrote the JSON array SGLang constrains it to;
  // under a structural tag it wrote its own markup, which SGLang reads with the family's detector)
  const forcing = tools.length > 0 && forcesToolCall(settings.toolChoice);
  const forced = forcing && !constrainsNatively(parsers.toolCallParser, settings.flavor);
  // (under a structural tag, an output without the family's markup that is a JSON array of calls is read as calls)
  const withFallback = (parser: OutputParser | HarmonyParser): AnswerParser =>
    forcing && !forced && parsers.toolCallParser !== null ? new JsonFallbackCalls(parser, parsers.toolCallParser) : parser;
  const toolCalls = toolFormat !== null && tools.length > 0 && settings.toolChoice !== "none" && !forced;
  // gpt-oss writes harmony channels in special tokens: its own parser
  const harmony = toolFormat === "harmony" || parsers.reasoningParser === "gpt-oss";
  if (harmony) {
    const parser = new HarmonyParser({ toolCalls, tools, stop });
    return { parser: forced ? new JsonArrayCalls(parser) : withFallback(parser), harmony };
  }
  const parser = new OutputParser({
    reasoning: reasoning !== null,
    startInReasoning: settings.startsInReasoning || reasoning?.forced === true,
    toolCalls,
    toolCallEndsReasoning: settings.flavor === "upstream" && reasoning?.toolCallEnds === true,
    edges: settings.flavor === "upstream" ? "kept" : "trimmed",
    ...(typeof toolFormat === "object" && toolFormat !== null ? { toolFormat, tools } : {}),
    stop,
  });
  return { parser: forced ? new JsonArrayCalls(parser) : withFallback(parser), harmony };
}
