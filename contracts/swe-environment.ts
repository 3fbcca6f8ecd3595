// The reference's SWE pool protocol (a pool server forwarding to an exec server on the Docker nodes; its files in
// tests/fixtures/reference-episodes/citations.json): JSON answers with `ok`.
import { z } from "zod";

const answer = z.object({ ok: z.boolean(), error: z.string().optional() }).passthrough();

export const sweAllocateAnswerSchema = answer.extend({ lease_id: z.string().min(1), container_id: z.string().optional(), node_url: z.string().optional() });
export const sweExecAnswerSchema = answer.extend({ returncode: z.number().int(), output: z.string() });
export const sweDiffAnswerSchema = answer.extend({ patch: z.string(), returncode: z.number().int().optional() });
/** `error` here is the evaluation's note (patch validation, git apply, a timeout) beside ok: true, not a refusal. */
export const sweEvaluateAnswerSchema = answer.extend({ resolved: z.boolean(), returncode: z.number().int().optional(), output: z.string().optional() });
export const swePlainAnswerSchema = answer;

/** What a SWE task line carries in task_meta (SWE-bench's instance fields the reference reads). */
export const sweTaskMetaSchema = z
  .object({
    image: z.string().min(1),
    instance_id: z.string().min(1).optional(),
    problem_statement: z.string(),
    eval_script: z.string(),
    cwd: z.string().default("/testbed"),
  })
  .passthrough();
