// The recipe's `model` section: the policy checkpoint, its names, family and lengths. Ignores how the family is detected.
import { z } from "zod";
import { positiveInt } from "./scalars.ts";

/** Model families by the markup their checkpoints write (lib/model/model-family.ts: detection, SGLang parser names). */
export const MODEL_FAMILIES = ["qwen3", "qwen3-coder", "llama3", "deepseek-v3", "glm-4.5", "gpt-oss"] as const;
export type ModelFamilyName = (typeof MODEL_FAMILIES)[number];

export const modelSchema = z
  .object({
    path: z
      .string()
      .min(1)
      .default("/models/Qwen3-4B-Thinking-2507")
      .describe("Hugging Face checkpoint folder of the policy (config, tokenizer.json, tokenizer_config.json with the chat template)."),
    tokenizer_path: z
      .string()
      .optional()
      .describe("Folder holding tokenizer.json and tokenizer_config.json when it differs from model.path; `builtin:qwen3` uses the Qwen3 files shipped with openclaw-rl."),
    served_name: z.string().min(1).default("qwen3-4b").describe("Model id the proxy answers to and lists in /v1/models."),
    aliases: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "Other model ids the proxy answers to as the served model (and lists in /v1/models), e.g. a name a client insists on sending. Any id that is not served_name, an alias or a proxy.utility_models entry gets 404 model_not_found, as OpenAI's and Anthropic's APIs answer.",
      ),
    family: z
      .enum(["auto", ...MODEL_FAMILIES])
      .default("auto")
      .describe("Model family (how its reasoning and tool calls are written): auto = from the chat template's markup, else config.json architectures. Set it only when that guess is wrong."),
    reasoning_parser: z
      .enum(["auto", "qwen3", "none"])
      .default("auto")
      .describe("How reasoning is split from the answer: auto = the model family's way (model.family), qwen3 = Qwen3's <think>…</think> whatever the family, none = reasoning stays in the content."),
    tool_call_parser: z
      .enum(["auto", "qwen25", "none"])
      .default("auto")
      .describe("How tool calls are parsed: auto = the model family's markup (model.family), qwen25 = Qwen's <tool_call>{json}</tool_call> whatever the family, none = tool calls stay text."),
    context_length: positiveInt.default(32768).describe("Context length of the policy engines (--sglang-context-length)."),
    max_response_tokens: positiveInt.default(8192).describe("Longest response (--rollout-max-response-len); caps the client's max_tokens."),
  })
  .strict()
  .prefault({});
