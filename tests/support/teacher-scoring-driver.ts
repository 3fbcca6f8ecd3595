// Runs the orchestrator's own teacher scoring (TeacherScorer: its prefill or per-position requests, its reading of the
// answers) against an engine at a URL, for a given hinted prompt and response; prints the values as JSON. Used by the
// native test that compares them with the trainer's teacher (native/tests/test_trainer_teacher.py).
// Usage: tsx tests/support/teacher-scoring-driver.ts '{"engineUrl", "promptIds", "responseIds", "temperature", "topk", "window"}'
import { z } from "zod";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { scoreOverIds } from "./ids-teacher-scorer.ts";

const inputSchema = z.object({
  engineUrl: z.string().url(),
  promptIds: z.array(z.number().int()).min(1),
  responseIds: z.array(z.number().int()).min(1),
  temperature: z.number().positive(),
  topk: z.number().int().min(0),
  window: z.number().int().min(1),
});

const input = inputSchema.parse(JSON.parse(process.argv[2] ?? "{}"));
const outcome = await scoreOverIds({ ...input, engine: new SglangClient({ baseUrl: input.engineUrl }), place: "engine" });
process.stdout.write(JSON.stringify(outcome.ok ? { ok: true, scoring: outcome.scoring, requests: outcome.requests, values: outcome.values } : { ok: false, reason: outcome.reason }) + "\n");
