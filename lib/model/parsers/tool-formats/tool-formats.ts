// SGLang's parser names → this project's parsers: the tool-call format for a --tool-call-parser name, and how a
// --reasoning-parser name's reasoning is read. One place that says which families tokens mode parses.
import { DEEPSEEK_V3, DEEPSEEK_V31 } from "./deepseek.ts";
import { GLM45 } from "./glm45.ts";
import { LLAMA3 } from "./llama3.ts";
import { QWEN3_CODER, QWEN3_CODER_DCE8B060 } from "./qwen3-coder.ts";
import type { ToolFormat } from "./tool-format.ts";

const FORMATS: readonly ToolFormat[] = [DEEPSEEK_V3, DEEPSEEK_V31, GLM45, LLAMA3, QWEN3_CODER];

/**
 * The format of an SGLang tool-call parser name: "qwen" for Qwen 2.5's (streamed in output-parser.ts), "harmony" for
 * gpt-oss (harmony-parser.ts reads its whole output), null when none is written here. Under the fork flavour
 * qwen3_coder reads values as the fork's SGLang does (without the schema).
 */
export function toolFormatFor(sglangName: string, flavor: "fork" | "upstream" = "upstream"): ToolFormat | "qwen" | "harmony" | null {
  if (sglangName === "qwen" || sglangName === "qwen25") return "qwen";
  if (sglangName === "gpt-oss") return "harmony";
  if (sglangName === "glm") return GLM45; // (SGLang's current name for glm45)
  if (sglangName === "qwen3_coder" && flavor === "fork") return QWEN3_CODER_DCE8B060;
  return FORMATS.find((format) => format.sglangName === sglangName) ?? null;
}

/**
 * How an SGLang reasoning parser reads the output: all of these split at <think>…</think>; `forced` ones take the
 * output to start inside reasoning even without <think> (the chat template opened it, or the model leaves it out);
 * `toolCallEnds`: in upstream's SGLang a <tool_call> ends the reasoning too (its Qwen3Detector, which qwen3,
 * qwen3-thinking and deepseek-v3 use, and Glm45Detector; the fork's have no such token). Null for a parser name not
 * read here.
 */
export function reasoningFor(sglangName: string): { forced: boolean; toolCallEnds: boolean } | null {
  switch (sglangName) {
    case "qwen3":
    case "glm45":
    case "deepseek-v3":
      return { forced: false, toolCallEnds: true };
    case "qwen3-thinking":
      return { forced: true, toolCallEnds: true };
    case "deepseek-r1":
      return { forced: true, toolCallEnds: false };
    case "gpt-oss": // (channels, not tags: harmony-parser.ts)
      return { forced: false, toolCallEnds: false };
    default:
      return null;
  }
}
