// Process entry of a stand-in SGLang server (rehearsal engine): parses argv, loads Qwen3's tokenizer, builds the
// policy or judge Responder and serves until SIGTERM/SIGINT. Run: node --import tsx/esm rehearsal/sglang/main.ts --role policy --port 31100
// With --weight-state FILE --run-id ID it saves its version and weights at every update and, restarted within the
// same run, serves them again (weight-state.ts). With --policy-file FILE (a saved policy-vN.json) it serves
// those weights from the start, for `openclaw-rl eval --checkpoint` (launchers/evaluation/checkpoint-serving.ts).
// With --role judge --hint-variants the m asks of one hint prompt vary (rehearsal/judge/hint-votes.ts; method hybrid).
import { readFileSync } from "node:fs";
import { STREAM_FORMS } from "../../contracts/sglang.ts";
import { parseArgs } from "node:util";
import { z } from "zod";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles, specialTokenText } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { JudgeResponder } from "../judge/responder.ts";
import { PolicyResponder } from "../policy/responder.ts";
import type { Responder } from "../model/responder.ts";
import { StandinSglangServer } from "./server.ts";
import { readWeightState, restoreWeights, saveWeightState, type WeightStateFile } from "./weight-state.ts";

const optionsSchema = z.object({
  role: z.enum(["policy", "judge"]),
  port: z.coerce.number().int().min(0).max(65535),
  host: z.string().default("127.0.0.1"),
  tokenizer: z.string().default("builtin:qwen3"),
  "served-model-name": z.string().optional(),
  seed: z.coerce.number().int().default(0),
  "token-delay-ms": z.coerce.number().min(0).default(0),
  "weight-version": z.string().default("default"),
  "stream-form": z.enum(STREAM_FORMS).default("cumulative"),
  "weight-state": z.string().min(1).optional(),
  "run-id": z.string().min(1).default("run"),
  "policy-file": z.string().min(1).optional(),
  "hint-variants": z.boolean().default(false),
});

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      role: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      tokenizer: { type: "string" },
      "served-model-name": { type: "string" },
      seed: { type: "string" },
      "token-delay-ms": { type: "string" },
      "weight-version": { type: "string" },
      "stream-form": { type: "string" },
      "weight-state": { type: "string" },
      "run-id": { type: "string" },
      "policy-file": { type: "string" },
      "hint-variants": { type: "boolean" },
    },
    strict: true,
  });
  const parsed = optionsSchema.safeParse(values);
  if (!parsed.success) {
    process.stderr.write(`stand-in sglang: ${parsed.error.issues.map((issue) => `--${issue.path.join(".")}: ${issue.message}`).join("; ")}\n`);
    process.exit(2);
  }
  const options = parsed.data;
  if (options.host !== "127.0.0.1" && options.host !== "localhost") {
    process.stderr.write("stand-in sglang: --host must be 127.0.0.1 (stand-ins bind loopback only)\n");
    process.exit(2);
  }
  if (options["policy-file"] && options.role !== "policy") {
    process.stderr.write("stand-in sglang: --policy-file is the policy's saved weights (--role policy only)\n");
    process.exit(2);
  }
  const files = await loadTokenizerFiles(options.tokenizer);
  const tokenizer = new ModelTokenizer(files);
  const chatTemplate = new ChatTemplate(files);
  const responder: Responder = options.role === "policy" ? await PolicyResponder.create(tokenizer, { seed: options.seed }) : await JudgeResponder.create(tokenizer, { seed: options.seed, hintVariants: options["hint-variants"] });
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const weightState: WeightStateFile | null = options["weight-state"] ? { file: options["weight-state"], runId: options["run-id"] } : null;
  const saved = weightState ? readWeightState(weightState) : null;
  if (saved) restoreWeights(saved, responder);
  const policyFile = options["policy-file"];
  if (policyFile) {
    try {
      responder.importWeights?.(JSON.parse(readFileSync(policyFile, "utf8")));
    } catch (error) {
      process.stderr.write(`stand-in sglang: --policy-file ${policyFile}: ${(error as Error).message}\n`);
      process.exit(2);
    }
  }
  const server = new StandinSglangServer({
    tokenizer,
    chatTemplate,
    eosTokenIds: endOfTurnIds(files.tokenizerConfig, tokenizer),
    responder,
    role: options.role,
    modelPath: options.tokenizer,
    servedModelName: options["served-model-name"],
    port: options.port,
    host: "127.0.0.1",
    tokenDelayMs: options["token-delay-ms"],
    weightVersion: saved?.weight_version ?? options["weight-version"],
    streamForm: options["stream-form"],
    log,
    onWeightsChanged: weightState ? (version) => saveWeightState(weightState, version, responder) : undefined,
  });
  const { url } = await server.start();
  log(`[standin-${options.role}] the model is a stand-in: a CPU ${options.role === "policy" ? "policy (reply styles + tool calls, learnable style softmax)" : "judge/teacher (answers from cues in the next state)"} speaking SGLang's HTTP API with Qwen3's real tokenizer; no real model runs here`);
  if (policyFile) log(`[standin-${options.role}] serving the saved policy ${policyFile} as weight version ${server.state.weightVersion}`);
  if (saved) log(`[standin-${options.role}] restarted within run ${saved.run_id}: serving weight version ${saved.weight_version} and its weights again (from ${weightState!.file})`);
  log(`[standin-${options.role}] listening on ${url} (weight version ${server.state.weightVersion})`);
  const stop = () => {
    server.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

/** The ids a generation stops at: the tokenizer config's eos_token (as generation_config.json usually has it) and Qwen's end-of-turn tokens, those the vocabulary has. */
function endOfTurnIds(config: Record<string, unknown>, tokenizer: ModelTokenizer): number[] {
  const ids = [specialTokenText(config.eos_token), "<|im_end|>", "<|endoftext|>"].map((token) => (token === undefined ? undefined : tokenizer.tokenId(token)));
  return [...new Set(ids.filter((id): id is number => id !== undefined))];
}

main().catch((error: unknown) => {
  process.stderr.write(`stand-in sglang: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
