// The recipe's `judge` section: the judge's checkpoint, votes, launch and call limits. Ignores the judge's GPUs (cluster).
import { z } from "zod";
import { port, positiveInt } from "./scalars.ts";

export const judgeSchema = z
  .object({
    path: z.string().optional().describe("Judge (PRM / teacher) checkpoint; defaults to model.path (a frozen copy of the policy, as the reference)."),
    tokenizer_path: z
      .string()
      .optional()
      .describe("Judge tokenizer folder when it differs from judge.path; `builtin:qwen3` uses the shipped Qwen3 files. Unset: judge.path, else the policy's tokenizer (model.tokenizer_path, else model.path)."),
    votes: positiveInt.max(64).default(3).describe("m: judge votes per turn, run in parallel (--prm-m)."),
    temperature: z.number().min(0).max(2).default(0.6).describe("Judge sampling temperature (--prm-temperature)."),
    max_new_tokens: positiveInt.default(4096).describe("Judge max new tokens (--prm-max-new-tokens)."),
    launch: z
      .enum(["slime", "standalone", "external"])
      .default("slime")
      .describe("Who runs the judge: slime (the OpenClaw-RL fork's --prm-* flags), standalone (sglang.launch_server on the PRM GPUs), external (judge.url)."),
    url: z.string().url().optional().describe("Judge base URL when judge.launch is external (an SGLang server)."),
    port: port.default(31000).describe("Port of the standalone judge server."),
    timeout_s: z.number().positive().default(180).describe("Timeout of one judge call, in seconds."),
    retries: z.number().int().min(0).max(10).default(2).describe("Retries of a failed judge call (timeouts, 5xx), with backoff."),
    concurrency: positiveInt.default(8).describe("Most judge and teacher calls in flight at once."),
    max_waiting_turns: positiveInt
      .default(1000)
      .describe("Closed turns that may wait for the judge; beyond this the oldest waiting turn is not judged (recorded as skipped: backlog-full)."),
  })
  .strict()
  .prefault({});
