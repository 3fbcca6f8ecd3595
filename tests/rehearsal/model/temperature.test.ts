// The stand-in SGLang server's temperatures, as SGLang's (tests/fixtures/sglang/logprob-temperature.json): prefill
// (input) log-probs are at 1 whatever the request's temperature; token_ids_logprob answers with the sampler's
// log-probs at the request's temperature (1 when greedy), in output_token_ids_logprobs, one row per output position.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GenerateRequest } from "../../../contracts/sglang.ts";
import type { Responder } from "../../../rehearsal/model/responder.ts";
import { StandinSglangServer } from "../../../rehearsal/sglang/server.ts";
import { loadTokenizerFiles } from "../../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../../lib/model/model-tokenizer.ts";

let server: StandinSglangServer;
let url: string;
let tokenizer: ModelTokenizer;
const responder: Responder = {
  reply: () => ({ text: "ok" }),
  score: ({ inputIds }) => inputIds.map((_, position) => (position % 2 === 0 ? -0.3 : -0.25)),
};

beforeAll(async () => {
  tokenizer = new ModelTokenizer(await loadTokenizerFiles("builtin:qwen3"));
  server = new StandinSglangServer({ tokenizer, responder });
  url = (await server.start()).url;
});
afterAll(() => server.close());

async function generate(body: GenerateRequest & { token_ids_logprob?: number[] }): Promise<Record<string, any>> {
  const response = await fetch(`${url}/generate`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { meta_info: Record<string, any> }).meta_info;
}

const ids = async () => tokenizer.encode("<|im_start|>user\nhow far is 5 miles?<|im_end|>\n<|im_start|>assistant\n8 km");

describe("stand-in temperatures", () => {
  it("prefill log-probs ignore the request's temperature", async () => {
    const input = await ids();
    const prefill = (temperature: number) => generate({ input_ids: input, sampling_params: { temperature, max_new_tokens: 0 }, return_logprob: true, logprob_start_len: 0, top_logprobs_num: 3 });
    const [atOne, atLow] = [await prefill(1), await prefill(0.3)];
    expect(atLow.input_token_logprobs).toEqual(atOne.input_token_logprobs);
    expect(atLow.input_top_logprobs).toEqual(atOne.input_top_logprobs);
  });

  it("token_ids_logprob: the sampler's log-prob of the asked token at the request's temperature, and its top-K row", async () => {
    const input = await ids();
    const [context, token] = [input.slice(0, -1), input.at(-1)!];
    const prefillValue = (await generate({ input_ids: input, sampling_params: { max_new_tokens: 0 }, return_logprob: true, logprob_start_len: input.length - 2 })).input_token_logprobs[1][0] as number;
    const asked = async (temperature: number | undefined) =>
      generate({ input_ids: context, sampling_params: { ...(temperature === undefined ? {} : { temperature }), max_new_tokens: 1 }, return_logprob: true, token_ids_logprob: [token], top_logprobs_num: 4 });
    const atOne = await asked(1);
    expect(atOne.output_token_ids_logprobs).toEqual([[[prefillValue, token, null]]]);
    expect((await asked(undefined)).output_token_ids_logprobs).toEqual(atOne.output_token_ids_logprobs); // SGLang's default is 1
    expect((await asked(0)).output_token_ids_logprobs).toEqual(atOne.output_token_ids_logprobs); // greedy: 1
    const sharp = await asked(0.5);
    const value = sharp.output_token_ids_logprobs[0][0][0] as number;
    expect(prefillValue).toBeGreaterThan(Math.log(0.5)); // the likeliest token: sharper at 0.5
    expect(value).toBeGreaterThan(prefillValue);
    const row = sharp.output_top_logprobs[0] as Array<[number, number, null]>;
    expect(row).toHaveLength(4);
    expect(row.map((entry) => entry[0])).toEqual([...row.map((entry) => entry[0])].sort((a, b) => b - a));
    expect(row.find((entry) => entry[1] === token)?.[0]).toBe(value);
    expect(row.reduce((sum, entry) => sum + Math.exp(entry[0]), 0)).toBeLessThan(1);
  });

  it("the teacher forward (the rehearsal trainer's teacher) gives every position's sampler value in one request", async () => {
    const input = await ids();
    const forward = await fetch(`${url}/standin/teacher_forward`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input_ids: input, temperature: 0.6 }) });
    expect(forward.status).toBe(200);
    const values = ((await forward.json()) as { token_logprobs: Array<number | null> }).token_logprobs;
    expect(values).toHaveLength(input.length);
    expect(values[0]).toBeNull();
    for (const position of [1, Math.floor(input.length / 2), input.length - 1]) {
      const asked = await generate({ input_ids: input.slice(0, position), sampling_params: { temperature: 0.6, max_new_tokens: 1 }, return_logprob: true, token_ids_logprob: [input[position]!] });
      expect(values[position]).toBe(asked.output_token_ids_logprobs[0][0][0]);
    }
    const refused = await fetch(`${url}/standin/teacher_forward`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input_ids: input }) });
    expect(refused.status).toBe(400);
  });
});
