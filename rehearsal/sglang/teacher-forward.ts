// POST /standin/teacher_forward (stand-in only, no SGLang equivalent): the stand-in model's one forward pass over a
// token sequence, as log P_T(ids[p] | ids[:p]) for every position, at a temperature. What the rehearsal stand-in trainer
// uses as its frozen teacher with opd.teacher trainer: the values equal the stand-in's per-position sampler answers.
import type { ServerResponse } from "node:http";
import { z } from "zod";
import { sendError, sendJson, zodMessage } from "./http.ts";
import type { StandinRouteContext } from "./route-context.ts";
import { atTemperature } from "../model/temperature.ts";

const forwardRequestSchema = z.object({ input_ids: z.array(z.number().int().min(0)).min(2), temperature: z.number().positive() }).strict();

/** token_logprobs[0] is null (the first token has no context); entry p is token p's log-prob after ids[:p]. */
export async function teacherForward(server: StandinRouteContext, body: unknown, response: ServerResponse): Promise<void> {
  const parsed = forwardRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(response, 400, zodMessage(parsed.error));
  const { input_ids: ids, temperature } = parsed.data;
  const scores = await server.score(ids); // the stand-in's prefill scores at temperature 1
  server.state.counters.forwards += 1;
  sendJson(response, 200, { token_logprobs: ids.map((id, position) => (position === 0 ? null : atTemperature(id, scores[position] ?? 0, temperature, 0).logprob)) });
}
