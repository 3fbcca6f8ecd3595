// Whether SGLang takes a chat request to think, per flavour: what sets /generate's require_reasoning for a tool_choice
// grammar (where SGLang decides it: tests/fixtures/sglang-parsers/citations.json). Ignores how reasoning is then read.
import type { ReasoningToggle } from "../reasoning-toggle.ts";

type Kwargs = Record<string, unknown> | null | undefined;

/** Python's `not kwargs`: None or an empty dict. */
function noKwargs(kwargs: Kwargs): boolean {
  return !kwargs || Object.keys(kwargs).length === 0;
}

/** The fork's rule: deepseek-v3 only when asked (thinking true); qwen3 and glm45 unless enable_thinking is anything but true; the others always. */
function forkThinks(reasoningParser: string, kwargs: Kwargs): boolean {
  if (reasoningParser === "deepseek-v3") return kwargs?.thinking === true;
  if (["qwen3", "glm45", "nano_v3", "interns1"].includes(reasoningParser)) return noKwargs(kwargs) || ("enable_thinking" in kwargs! ? kwargs!.enable_thinking : true) === true;
  return true;
}

/** The reasoning parser's own default where the template says nothing (its detector's reasoning_default). */
const PARSER_DEFAULTS: Record<string, string> = {
  qwen3: "enable_thinking",
  "qwen3-thinking": "enable_thinking",
  glm45: "enable_thinking",
  "deepseek-v3": "explicit_thinking",
  "deepseek-r1": "always",
  "gpt-oss": "always",
};

/** reasoning_effort set and not "none" (SGLang's Mistral rule). */
function effortAsked(effort: unknown): boolean {
  return effort !== undefined && effort !== null && effort !== "none";
}

/** A toggle kwarg read as upstream reads it: default-on unless it is exactly false, default-off unless exactly true. */
function toggled(kwargs: Kwargs, parameter: string, defaultEnabled: boolean): boolean {
  return defaultEnabled ? noKwargs(kwargs) || kwargs![parameter] !== false : kwargs?.[parameter] === true;
}

/**
 * Upstream's rule: the chat template's toggle (lib/model/reasoning-toggle.ts) decides, else the reasoning parser's
 * default. minimax-m3 and hunyuan, which no family here uses, keep their own rules.
 */
function upstreamThinks(reasoningParser: string, kwargs: Kwargs, reasoningEffort: unknown, template: ReasoningToggle | null): boolean {
  if (reasoningParser === "minimax-m3") return kwargs?.thinking_mode === "enabled";
  if (reasoningParser === "hunyuan") return effortAsked(reasoningEffort) && reasoningEffort !== "no_think";
  if (template === null) {
    const mode = PARSER_DEFAULTS[reasoningParser] ?? "always";
    if (mode === "always") return true;
    if (mode === "enable_thinking" || mode === "thinking") return toggled(kwargs, mode, true);
    return toggled(kwargs, mode.replace("explicit_", ""), false);
  }
  if (template.specialCase === "always") return true;
  if (template.specialCase === "mistral") return effortAsked(reasoningEffort);
  if (template.toggleParameter === null || template.defaultEnabled === null) return false;
  return toggled(kwargs, template.toggleParameter, template.defaultEnabled);
}

/**
 * Whether SGLang's grammar for this request lets the model reason first (/generate's require_reasoning: the grammar
 * starts after the reasoning parser's end token), as the plan's flavour's serving_chat decides it.
 */
export function requiresReasoning(
  request: { chat_template_kwargs?: Kwargs; reasoning_effort?: unknown },
  options: { reasoningParser: string | null; flavor: "fork" | "upstream"; templateToggle: ReasoningToggle | null },
): boolean {
  if (options.reasoningParser === null) return false;
  const kwargs = request.chat_template_kwargs;
  if (options.flavor === "fork") return forkThinks(options.reasoningParser, kwargs);
  return upstreamThinks(options.reasoningParser, kwargs, request.reasoning_effort, options.templateToggle);
}
