// How a chat template switches the model's reasoning on and off, read from its text as upstream SGLang reads it
// (where: tests/fixtures/sglang-parsers/citations.json reasoning_toggle). Ignores rendering.
import { Template } from "@huggingface/jinja";

/** SGLang's ReasoningToggleConfig: the kwarg that toggles reasoning, and its default. */
export interface ReasoningToggle {
  toggleParameter: "enable_thinking" | "thinking" | null;
  defaultEnabled: boolean | null;
  /** "always": reasoning cannot be turned off; "mistral": reasoning_effort turns it on. */
  specialCase: "always" | "mistral" | null;
}

const ALWAYS: ReasoningToggle = { toggleParameter: null, defaultEnabled: null, specialCase: "always" };
const toggle = (toggleParameter: "enable_thinking" | "thinking", defaultEnabled: boolean): ReasoningToggle => ({ toggleParameter, defaultEnabled, specialCase: null });

/** A template's text, and its syntax tree once a rule asks (null: it does not parse). */
interface TemplateText {
  text: string;
  tree(): unknown;
}

/** The first rule whose test holds, in SGLang's order (the nemotron rule's low_effort kwarg is not kept). */
const RULES: readonly { name: string; value: ReasoningToggle; holds(template: TemplateText): boolean }[] = [
  { name: "gpt_oss_channel_markers", value: ALWAYS, holds: ({ text }) => text.includes("<|channel|>") },
  {
    name: "force_reasoning_pattern",
    value: ALWAYS,
    holds: ({ text }) => /<\|im_start\|>assistant\\n<think>\\n/.test(text) && !text.includes("enable_thinking") && !text.includes("thinking"),
  },
  { name: "mistral_reasoning_effort", value: { toggleParameter: null, defaultEnabled: null, specialCase: "mistral" }, holds: ({ text }) => text.includes("reasoning_effort") && text.includes("[THINK]") },
  { name: "explicit_enable_thinking_default_false", value: toggle("enable_thinking", false), holds: (template) => setIfUndefined("enable_thinking", "false").test(template.text) || hasToggleDefault(template.tree(), "enable_thinking", false) },
  { name: "nemotron_3_super_low_effort", value: toggle("enable_thinking", true), holds: ({ text }) => text.includes("low_effort") && text.includes("truncate_history_thinking") },
  { name: "enable_thinking_default_true", value: toggle("enable_thinking", true), holds: (template) => defaultTrue("enable_thinking", template) },
  { name: "explicit_thinking_default_false", value: toggle("thinking", false), holds: (template) => setIfUndefined("thinking", "false").test(template.text) || hasToggleDefault(template.tree(), "thinking", false) },
  { name: "thinking_default_true", value: toggle("thinking", true), holds: (template) => defaultTrue("thinking", template) },
];

/** `{% if not NAME is defined %} … {% set NAME = VALUE %}` (VALUE false/False or true/True). */
function setIfUndefined(name: string, value: "false" | "true"): RegExp {
  const literal = value === "false" ? "(?:false|False)" : "(?:true|True)";
  return new RegExp(`\\{%\\s*if\\s+not\\s+${name}\\s+is\\s+defined\\s*%\\}.*?\\{%\\s*set\\s+${name}\\s*=\\s*${literal}\\s*%\\}`, "s");
}

/** The default-on patterns of SGLang's enable_thinking and thinking rules. */
function defaultTrue(name: string, template: TemplateText): boolean {
  const patterns = [
    setIfUndefined(name, "true"),
    new RegExp(`set\\s+${name}\\s*=\\s*${name}\\s+if\\s+${name}\\s+is\\s+defined\\s+else\\s+(?:true|True)`),
    new RegExp(`${name}\\s+is\\s+defined\\s+and\\s+(?:${name}\\s+is\\s+false|not\\s+${name})`),
    new RegExp(`${name}\\s+is\\s+not\\s+defined\\s+or\\s+${name}`),
    new RegExp(`namespace\\([^)]*${name}\\s*=\\s*true`),
  ];
  return patterns.some((pattern) => pattern.test(template.text)) || hasToggleDefault(template.tree(), name, true);
}

interface Node {
  type?: unknown;
  [key: string]: unknown;
}

/** jinja2 parses true/True/false/False as boolean constants; @huggingface/jinja as names the environment defines. */
function booleanConstant(node: Node | undefined): boolean | null {
  if (node?.type !== "Identifier") return null;
  return node.value === "true" || node.value === "True" ? true : node.value === "false" || node.value === "False" ? false : null;
}

/** A constant argument's truth as Python's bool() gives it, or undefined when the argument is not a constant. */
function constantTruth(node: Node): boolean | undefined {
  const named = booleanConstant(node);
  if (named !== null) return named;
  if (node.type === "Identifier" && (node.value === "none" || node.value === "None")) return false;
  if (node.type === "IntegerLiteral" || node.type === "FloatLiteral") return node.value !== 0;
  if (node.type === "StringLiteral") return node.value !== "";
  return undefined;
}

/**
 * Whether the template applies `default` (or `d`) to NAME with a boolean default equal to `wanted`, as a working
 * toggle (`default(true, true)` is not one: it turns an explicit false into true), as SGLang's
 * _has_toggle_default_assignment reads it, over @huggingface/jinja's syntax tree instead of jinja2's
 * (tests/fixtures/sglang-tool-choice/thinking-mode.json holds SGLang's answers). A template that does not parse has none.
 */
function hasToggleDefault(tree: unknown, name: string, wanted: boolean): boolean {
  if (tree === null) return false;
  const matches = (node: Node): boolean => {
    if (node.type !== "FilterExpression") return false;
    const operand = node.operand as Node;
    const filter = node.filter as Node;
    if (operand.type !== "Identifier" || operand.value !== name || filter.type !== "CallExpression") return false;
    const callee = filter.callee as Node;
    if (callee.type !== "Identifier" || (callee.value !== "default" && callee.value !== "d")) return false;
    const positional = (filter.args as Node[]).filter((argument) => argument.type !== "KeywordArgumentExpression");
    const keywords = (filter.args as Node[]).filter((argument) => argument.type === "KeywordArgumentExpression");
    if (positional.some((argument) => argument.type === "SpreadExpression")) return false;
    const defaultValue = booleanConstant(positional[0]);
    if (defaultValue === null) return false;
    const booleanArgument = positional[1] ?? (keywords.find((keyword) => (keyword.key as Node).value === "boolean")?.value as Node | undefined);
    const booleanMode = booleanArgument === undefined ? false : constantTruth(booleanArgument);
    if (booleanMode === undefined) return false;
    if (booleanMode && defaultValue) return false;
    return defaultValue === wanted;
  };
  const walk = (value: unknown): boolean => {
    if (Array.isArray(value)) return value.some(walk);
    if (value === null || typeof value !== "object") return false;
    if (value instanceof Map) return [...value.entries()].some(([key, item]) => walk(key) || walk(item));
    const node = value as Node;
    if (matches(node)) return true;
    return Object.values(node).some((child) => typeof child === "object" && walk(child));
  };
  return walk(tree);
}

/** The template's reasoning toggle, or null when no rule holds (SGLang then falls back to the parser's default). */
export function reasoningToggleOf(template: string | null): ReasoningToggle | null {
  if (template === null) return null;
  let parsed: { tree: unknown } | null = null;
  const tree = (): unknown => {
    if (parsed === null) {
      parsed = { tree: null };
      try {
        parsed.tree = new Template(template).parsed;
      } catch {
        // no tree: no default-filter toggle
      }
    }
    return parsed.tree;
  };
  return RULES.find((rule) => rule.holds({ text: template, tree }))?.value ?? null;
}
