// POST /generate of the stand-in: parse, wait while paused, prepare the generation, answer whole or as an SSE stream
// in one of SGLang's three forms (stream-form.ts). Owns the response bodies; the finish rules live in
// generation.ts.
import type { ServerResponse } from "node:http";
import type { StandinGeneration } from "./generation.ts";
import { endSse, sendError, sendJson, startSse, writeSse, zodMessage } from "./http.ts";
import type { PreparedGeneration, StandinRouteContext } from "./route-context.ts";
import { samplerTemperature } from "../model/temperature.ts";
import { generateRequestSchema, inputLogprobFields, metaInfo, outputLogprobFields, type LogprobView, type StandinGenerateRequest } from "./wire.ts";
import { SampledPositions } from "./token-ids.ts";
import { STREAM_FORMS, type StreamForm } from "./stream-form.ts";

interface Admitted {
  request: StandinGenerateRequest;
  inputIds: number[];
  view: LogprobView;
}

async function admit(server: StandinRouteContext, body: unknown): Promise<Admitted | string> {
  const parsed = generateRequestSchema.safeParse(body);
  if (!parsed.success) return zodMessage(parsed.error);
  const request = parsed.data;
  const inputIds = request.input_ids ?? (await server.tokenizer.encode(request.text ?? ""));
  if (inputIds.length === 0) return "the prompt is empty";
  if (request.return_logprob && request.logprob_start_len > inputIds.length) {
    return `logprob_start_len (${request.logprob_start_len}) is larger than the input length (${inputIds.length})`;
  }
  const tokenizer = server.tokenizer;
  const view: LogprobView = {
    returnLogprob: request.return_logprob,
    logprobStartLen: request.logprob_start_len,
    topLogprobsNum: request.top_logprobs_num,
    tokenIdsLogprob: request.token_ids_logprob && request.token_ids_logprob.length > 0 ? request.token_ids_logprob : null,
    temperature: samplerTemperature(request.sampling_params),
    tokenText: request.return_text_in_logprobs ? (id) => tokenizer.decode([id], { skipSpecialTokens: false }) : null,
  };
  return { request, inputIds, view };
}

class ChunkBuilder {
  private first = true;
  private inputFields: Record<string, unknown> | null = null;
  private readonly sampled: SampledPositions | null;

  constructor(
    private readonly server: StandinRouteContext,
    private readonly admitted: Admitted,
    private readonly prepared: PreparedGeneration,
  ) {
    const { view, inputIds } = admitted;
    this.sampled = view.returnLogprob && view.tokenIdsLogprob ? new SampledPositions(inputIds, view, (ids) => server.score(ids)) : null;
  }

  /** Scores the output positions the next chunk reports (token_ids_logprob), before it is built. */
  async loadSampledScores(generation: StandinGeneration): Promise<void> {
    await this.sampled?.load(generation.outputIds);
  }

  async loadInputScores(): Promise<void> {
    const { view, inputIds } = this.admitted;
    if (!view.returnLogprob) return;
    const scores = view.logprobStartLen >= 0 ? await this.server.score(inputIds) : [];
    this.inputFields = inputLogprobFields(inputIds, scores, view);
  }

  /**
   * One response body. `from` is what earlier chunks of this stream carried: none for a whole answer or the
   * cumulative form; in the incremental form the output ids, output log-probs and text after it; in the legacy form
   * only the output ids (text and log-probs stay whole, and there is no output_token_logprobs_length). completion_tokens
   * is cumulative and the input log-probs are repeated in full in every form, as SGLang does.
   */
  chunk(generation: StandinGeneration, form: StreamForm = "cumulative", from: { ids: number; text: number } = { ids: 0, text: 0 }): Record<string, unknown> {
    const fields = STREAM_FORMS[form];
    const idsFrom = fields.idsAreDeltas ? from.ids : 0;
    const logprobsFrom = fields.logprobsAreDeltas ? from.ids : 0;
    const textFrom = fields.textIsDelta ? from.text : 0;
    const ids = generation.outputIds.slice(idsFrom);
    const logprobIds = generation.outputIds.slice(logprobsFrom);
    const values = generation.outputLogprobs.slice(logprobsFrom);
    const logprobs = this.admitted.view.returnLogprob ? { ...this.inputFields, ...outputLogprobFields(logprobIds, values, this.admitted.view), ...this.sampled?.fields(logprobsFrom, generation.outputIds.length) } : null;
    const meta = metaInfo(
      {
        rid: generation.rid,
        finishReason: generation.finishReason,
        promptTokens: this.admitted.inputIds.length,
        completionTokens: generation.outputIds.length,
        cachedTokens: this.prepared.cachedTokens,
        weightVersion: this.server.state.weightVersion,
        first: this.first,
        startedAt: generation.startedAt,
      },
      logprobs,
    );
    this.first = false;
    if (!fields.logprobsLength) delete meta.output_token_logprobs_length;
    return { text: generation.text().slice(textFrom), output_ids: [...ids], meta_info: meta };
  }
}

export async function wholeGenerate(server: StandinRouteContext, body: unknown, response: ServerResponse): Promise<void> {
  const admitted = await admit(server, body);
  if (typeof admitted === "string") return sendError(response, 400, admitted);
  let builder: ChunkBuilder | undefined;
  const prepared = await server.admit(admitted.inputIds, admitted.request.sampling_params, admitted.request.rid, async (candidate) => {
    builder = new ChunkBuilder(server, admitted, candidate);
    await builder.loadInputScores();
  });
  response.on("close", () => {
    if (!response.writableFinished) prepared.generation.requestAbort();
  });
  for await (const _ of server.run(prepared)) {
    // whole answers are sent once, at the finish
  }
  await builder!.loadSampledScores(prepared.generation);
  sendJson(response, 200, builder!.chunk(prepared.generation));
}

export async function streamGenerate(server: StandinRouteContext, body: unknown, response: ServerResponse): Promise<void> {
  const admitted = await admit(server, body);
  if (typeof admitted === "string") return sendError(response, 400, admitted);
  startSse(response); // SGLang answers 200 at once; while paused the body just stalls
  let builder: ChunkBuilder | undefined;
  const prepared = await server.admit(admitted.inputIds, admitted.request.sampling_params, admitted.request.rid, async (candidate) => {
    builder = new ChunkBuilder(server, admitted, candidate);
    await builder.loadInputScores();
  });
  response.on("close", () => prepared.generation.requestAbort());
  if (response.destroyed) prepared.generation.requestAbort(); // the client left while it waited
  let sent = 0;
  const form = server.options.streamForm ?? "cumulative";
  const carried = { ids: 0, text: 0 };
  for await (const generation of server.run(prepared)) {
    // A reader that lags gets only the newest chunk (SGLang keeps out_list[-1], or in the incremental form joins the
    // queued ones): a chunk the socket cannot take now is not sent; the legacy form's ids advance all the same.
    const lagging = response.writableNeedDrain && generation.finishReason === null;
    if (!lagging) {
      await builder!.loadSampledScores(generation);
      writeSse(response, builder!.chunk(generation, form, { ...carried }));
      sent += 1;
    }
    if (!lagging || form === "legacy") Object.assign(carried, { ids: generation.outputIds.length, text: generation.text().length });
  }
  if (sent === 0) {
    await builder!.loadSampledScores(prepared.generation);
    writeSse(response, builder!.chunk(prepared.generation)); // prefill-only: one final chunk
  }
  endSse(response);
}
