// The teacher's log-probs are at the student's temperature (opd.teacher_temperature, default sampling.temperature,
// slime's --rollout-temperature). SGLang's prefill log-probs are at 1 whatever the request says
// (tests/fixtures/sglang/logprob-temperature.json), so at any other temperature the scorer asks one position per
// request through the sampler; at 1 it sends the one prefill request. The requests sent and the records are checked.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";
import { atTemperature } from "../../rehearsal/model/temperature.ts";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { hintedPromptIds } from "../../orchestrator/judging/hinted-prompt.ts";
import { makeTurn, RecordingClient, startHarness, teacherValue, type Harness } from "./judge-harness.ts";

const facts = JSON.parse(readFileSync(new URL("../fixtures/sglang/logprob-temperature.json", import.meta.url), "utf8")) as {
  prefill_input_logprobs: { temperature: number; request_temperature_read: boolean };
  per_position_request: { sampling_params: Record<string, unknown>; return_logprob: boolean };
};

const HINT = "Use metric units!";
const hintVote = `\\boxed{1} [HINT_START]${HINT}[HINT_END]`;

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function scoreOneTurn(recipe: Parameters<typeof startHarness>[0], marker: string) {
  let client: RecordingClient | null = null;
  harness = await startHarness(recipe, {}, (url) => (client = new RecordingClient({ baseUrl: url })));
  harness.judge.script(marker, "hint", [hintVote]);
  harness.judge.script(marker, "eval", ["\\boxed{1}"]);
  const turn = await makeTurn({ marker });
  await harness.judgeTurn(turn);
  const promptIds = await hintedPromptIds(turn.messages, turn.tools, HINT, harness.template, harness.tokenizer);
  const teacherRequests = client!.requests.filter((request) => request.input_ids !== undefined);
  const [record] = await harness.records();
  return { turn, promptIds, teacherRequests, record: record!, sample: harness.sink.byId(`${turn.sessionId}:0`) };
}

describe("recipe: opd.teacher_temperature", () => {
  it("defaults to the rollout temperature, can be set, and is refused when the rollout is greedy and it is not set", () => {
    expect(recipeSchema.parse({ method: "opd" }).derived.teacherTemperature).toBe(0.6);
    expect(recipeSchema.parse({ method: "opd", sampling: { temperature: 0.8 } }).derived.teacherTemperature).toBe(0.8);
    expect(recipeSchema.parse({ method: "opd", sampling: { temperature: 0.8 }, opd: { teacher_temperature: 1 } }).derived.teacherTemperature).toBe(1);
    const greedy = recipeSchema.safeParse({ method: "combine", sampling: { temperature: 0 } });
    expect(greedy.success).toBe(false);
    expect(greedy.error!.issues[0]).toMatchObject({ path: ["opd", "teacher_temperature"], message: expect.stringContaining("sampling.temperature is 0") });
    expect(recipeSchema.safeParse({ method: "combine", sampling: { temperature: 0 }, opd: { teacher_temperature: 0.7 } }).success).toBe(true);
    expect(recipeSchema.safeParse({ method: "binary", sampling: { temperature: 0 } }).success).toBe(true);
    expect(recipeSchema.safeParse({ method: "opd", opd: { teacher_temperature: 0 } }).success).toBe(false);
  });
});

describe("teacher scoring at the student's temperature", () => {
  it("default (rollout 0.6): one sampler request per response position at 0.6, the asked token's value kept for its position", async () => {
    const { turn, promptIds, teacherRequests, record, sample } = await scoreOneTurn({ method: "opd", judge: { votes: 1 } }, "CASE-t06");
    const R = turn.responseIds.length;
    expect(teacherRequests).toHaveLength(R);
    // SGLang's prefill log-probs would come back at 1: no prefill scoring request is sent
    expect(facts.prefill_input_logprobs).toMatchObject({ temperature: 1, request_temperature_read: false });
    expect(teacherRequests.some((request) => request.sampling_params?.max_new_tokens === 0 || request.logprob_start_len !== undefined)).toBe(false);
    const byPosition = new Map(teacherRequests.map((request) => [request.input_ids!.length - promptIds.length, request]));
    expect(teacherRequests[0]!.input_ids).toEqual(promptIds); // position 0 first, alone
    for (let position = 0; position < R; position += 1) {
      expect(byPosition.get(position)).toEqual({
        input_ids: [...promptIds, ...turn.responseIds.slice(0, position)],
        sampling_params: { ...facts.per_position_request.sampling_params, temperature: 0.6 },
        return_logprob: facts.per_position_request.return_logprob,
        token_ids_logprob: [turn.responseIds[position]],
      });
    }
    const P = promptIds.length;
    const atOne = turn.responseIds.map((token, i) => teacherValue(P + i, token));
    expect(sample!.teacherLogProbs).toEqual(turn.responseIds.map((token, i) => atTemperature(token, atOne[i]!, 0.6, 0).logprob));
    sample!.teacherLogProbs!.forEach((value, i) => expect(value).not.toBeCloseTo(atOne[i]!, 6)); // not the temperature-1 values
    expect(record.teacher).toEqual({ ok: true, reason: null, promptLength: P, logprobStartLen: null, topk: 0, promptReproduced: true, temperature: 0.6, scoring: "per-position", requests: R });
  });

  it("opd.teacher_temperature sets it: 0.8 goes to the sampler at 0.8; with top-K each position asks its K-row at that temperature", async () => {
    const { turn, teacherRequests, record, sample } = await scoreOneTurn({ method: "opd", judge: { votes: 1 }, opd: { teacher_temperature: 0.8, topk: 3 } }, "CASE-t08");
    const R = turn.responseIds.length;
    expect(teacherRequests).toHaveLength(R);
    expect(teacherRequests.every((request) => request.sampling_params?.temperature === 0.8 && request.top_logprobs_num === 3)).toBe(true);
    expect(sample!.teacherTopkLogProbs!.every((row) => row.length === 3)).toBe(true);
    for (let i = 0; i < R; i += 1) {
      const at = sample!.teacherTopkIndices![i]!.indexOf(turn.responseIds[i]!);
      if (at >= 0) expect(sample!.teacherTopkLogProbs![i]![at]).toBe(sample!.teacherLogProbs![i]);
    }
    expect(record.teacher).toMatchObject({ ok: true, temperature: 0.8, scoring: "per-position", topk: 3, requests: R });
  });

  it("at 1 (rollout 0.6, opd.teacher_temperature 1) it is the one prefill request, recorded as such", async () => {
    const { turn, promptIds, teacherRequests, record, sample } = await scoreOneTurn({ method: "combine", judge: { votes: 1 }, opd: { teacher_temperature: 1 } }, "CASE-t1");
    expect(teacherRequests).toEqual([
      { input_ids: [...promptIds, ...turn.responseIds], sampling_params: { temperature: 1, max_new_tokens: 0, skip_special_tokens: false }, return_logprob: true, logprob_start_len: promptIds.length - 1 },
    ]);
    expect(sample!.teacherLogProbs).toEqual(turn.responseIds.map((token, i) => teacherValue(promptIds.length + i, token)));
    expect(record.teacher).toMatchObject({ ok: true, temperature: 1, scoring: "prefill", requests: 1, logprobStartLen: promptIds.length - 1 });
  });

  it("an engine that answers a position without output_token_ids_logprobs is rejected with the reason, never padded", async () => {
    // an engine that ignores token_ids_logprob: the sampled token's own log-prob only
    const engine = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        const parsed = JSON.parse(body) as { text?: string; input_ids?: number[] };
        const meta: Record<string, unknown> = { finish_reason: { type: "length", length: 1 } };
        if (parsed.input_ids) {
          meta.input_token_logprobs = [[null, parsed.input_ids.at(-1), null]];
          meta.output_token_logprobs = [[-0.3, 11, null]];
        }
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ text: parsed.text?.includes("hindsight") ? hintVote : "x", output_ids: parsed.input_ids ? [11] : [], meta_info: meta }));
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`;
    harness = await startHarness({ method: "opd", judge: { votes: 1 } }, { judge: new SglangClient({ baseUrl: url }) });
    try {
      const judged = await harness.judgeTurn(await makeTurn({ marker: "CASE-noids" }));
      expect(judged).toMatchObject({ sample: null, skipped: expect.stringContaining("teacher scoring rejected") });
      const [record] = await harness.records();
      expect(record!.teacher).toMatchObject({ ok: false, reason: expect.stringContaining("position 0 has no output_token_ids_logprobs"), temperature: 0.6, scoring: "per-position", requests: 1 });
    } finally {
      engine.closeAllConnections();
      await new Promise((resolve) => engine.close(resolve));
    }
  });
});
