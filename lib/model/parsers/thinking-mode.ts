// Whether SGLang takes a chat request to think (serving_chat's _get_reasoning_from_request), per flavour: what sets
// /generate's require_reasoning for a tool_choice grammar. Ignores how the output's reasoning is then read.
import type { ReasoningToggle } from "../reasoning-toggle.ts";

type Kwargs = Record<string, unknown> | null | undefined;

/** Python's `not kwargs`: None or an empty dict. */
function noKwargs(kwargs: Kwargs): boolean {
  return !kwargs || Object.keys(kwargs).length === 0;
}

/**
 * dce8b060 (serving_chat.py:1095-1110@dce8b060): never without a reasoning parser; deepseek-v3 only when asked
 * (chat_template_kwargs.thinking true); qwen3 and glm45 unless enable_thinking is anything but true; the others always.
 */
function forkThinks(reasoningParser: string, kwargs: Kwargs): boolean {
  if (reasoningParser === "deepseek-v3") return kwargs?.thinking === true;
  if (["qwen3", "glm45", "nano_v3", "interns1"].includes(reasoningParser)) return noKwargs(kwargs) || ("enable_thinking" in kwargs! ? kwargs!.enable_thinking : true) === true;
  return true;
}

/**
 * The reasoning parser's own default where the template says nothing (the detector's reasoning_default,
 * reasoning_parser.py@4ad990ba: Qwen3Detector :356 and Glm45Detector :643 enable_thinking, _DeepSeekV3Detector
 * :1103 explicit_thinking; DeepSeekR1Detector and GptOssDetector keep the base class's "always", :65).
 */
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

/** A toggle kwarg read as 4ad990ba reads it: default-on unless it is exactly false, default-off unless exactly true. */
function toggled(kwargs: Kwargs, parameter: string, defaultEnabled: boolean): boolean {
  return defaultEnabled ? noKwargs(kwargs) || kwargs![parameter] !== false : kwargs?.[parameter] === true;
}

/**
 * 4ad990ba (serving_chat.py:2267-2343@4ad990ba): the chat template's toggle (lib/model/reasoning-toggle.ts) decides,
 * else the reasoning parser's default. minimax-m3 and hunyuan, which no family here uses, keep their own rules.
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
