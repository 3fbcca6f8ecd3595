// Runs the orchestrator's own teacher scoring (TeacherScorer: its prefill or per-position requests, its reading of the
// answers) against an engine at a URL, for a given hinted prompt and response; prints the values as JSON. Used by the
// native test that compares them with the trainer's teacher (native/tests/test_trainer_teacher.py).
// Usage: tsx tests/support/teacher-scoring-driver.ts '{"engineUrl", "promptIds", "responseIds", "temperature", "topk", "window"}'
import { z } from "zod";
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { CallLimiter } from "../../orchestrator/judging/call-limiter.ts";
import { TeacherScorer } from "../../orchestrator/judging/teacher-scorer.ts";

const inputSchema = z.object({
  engineUrl: z.string().url(),
  promptIds: z.array(z.number().int()).min(1),
  responseIds: z.array(z.number().int()).min(1),
  temperature: z.number().positive(),
  topk: z.number().int().min(0),
  window: z.number().int().min(1),
});

const input = inputSchema.parse(JSON.parse(process.argv[2] ?? "{}"));
// the hinted prompt is given as ids: the template renders nothing and the tokenizer answers those ids
const template = { render: () => "" } as unknown as ChatTemplate;
const tokenizer = { encode: async () => input.promptIds } as unknown as ModelTokenizer;
const scorer = new TeacherScorer({
  engine: new SglangClient({ baseUrl: input.engineUrl }),
  template,
  tokenizer,
  limiter: new CallLimiter(input.window),
  settings: { timeoutMs: 60_000, retries: 0, backoffMs: 0 },
  topk: input.topk,
  temperature: input.temperature,
  window: input.window,
  place: "engine",
  signal: new AbortController().signal,
});
const outcome = await scorer.score({ messages: [], tools: null, promptIds: Int32Array.from(input.promptIds), responseIds: input.responseIds }, "hint");
process.stdout.write(JSON.stringify(outcome.ok ? { ok: true, scoring: outcome.scoring, requests: outcome.requests, values: outcome.values } : { ok: false, reason: outcome.reason }) + "\n");
