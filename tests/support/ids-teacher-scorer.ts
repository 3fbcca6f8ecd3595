// The orchestrator's TeacherScorer over a hinted prompt given as token ids (the template renders nothing and the
// tokenizer answers those ids), so that a test or a bench drives its real requests without a model's template.
import type { ChatTemplate } from "../../lib/model/chat-template.ts";
import type { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import type { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { CallLimiter } from "../../orchestrator/judging/call-limiter.ts";
import { TeacherScorer, type TeacherOutcome } from "../../orchestrator/judging/teacher-scorer.ts";

export interface IdsScoring {
  engine: SglangClient;
  promptIds: readonly number[];
  responseIds: readonly number[];
  temperature: number;
  topk: number;
  window: number;
  place: "engine" | "trainer";
}

export function scoreOverIds(scoring: IdsScoring): Promise<TeacherOutcome> {
  const template = { render: () => "" } as unknown as ChatTemplate;
  const tokenizer = { encode: async () => [...scoring.promptIds] } as unknown as ModelTokenizer;
  const scorer = new TeacherScorer({
    engine: scoring.engine,
    template,
    tokenizer,
    limiter: new CallLimiter(scoring.window),
    settings: { timeoutMs: 60_000, retries: 0, backoffMs: 0 },
    topk: scoring.topk,
    temperature: scoring.temperature,
    window: scoring.window,
    place: scoring.place,
    signal: new AbortController().signal,
  });
  return scorer.score({ messages: [], tools: null, promptIds: Int32Array.from(scoring.promptIds), responseIds: scoring.responseIds }, "hint");
}
