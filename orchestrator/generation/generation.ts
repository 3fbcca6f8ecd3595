// One token-exact generation against SGLang /generate (streamed), continued transparently when the engine
// aborts it for a weight update: prompt + tokens so far go back as input_ids. Ignores text, parsing and HTTP.
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { GenerateRequest, GenerateResponse, SamplingParams, SglangFinishReason } from "../../contracts/sglang.ts";
import type { WeightVersionSpan } from "../../contracts/turn.ts";
import { EngineStatusError } from "../../lib/sglang/engine-errors.ts";
import type { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { plainArray } from "../../lib/worker-thread.ts";

export interface TokenBatch {
  ids: number[];
  logProbs: number[];
  /** With GenerationOptions.topLogprobs: the engine's [logprob, id] alternatives of each token (null where it sent none). */
  top?: ([number, number][] | null)[];
  version: string;
}

export interface GenerationResult {
  ids: number[];
  logProbs: number[];
  weightVersions: WeightVersionSpan[];
  finish: "stop" | "length" | "abort";
  /** The matched stop string or token id when finish is stop. */
  matched: string | number | null;
  continuedAfterAbort: number;
  abortMessage: string | null;
}

export interface GenerationOptions {
  promptIds: Int32Array;
  /** Cached JSON parts of promptIds when the prompt builder has them (copied into the request, not serialised again). */
  promptIdsJsonParts?: readonly string[];
  sampling: SamplingParams & Record<string, unknown>;
  maxNewTokens: number;
  signal: AbortSignal;
  /** Bounded retries of connection failures once the engine was reached (a restart mid-turn). */
  retryDelaysMs?: readonly number[];
  /** Most continuations after aborts (weight updates) in one turn. */
  maxContinuations?: number;
  /** Called when the engine first accepts a request of this generation (it may still be paused). */
  onAccepted?: () => void;
  /** Alternatives per token to ask the engine for (top_logprobs_num); 0 or absent: none. */
  topLogprobs?: number;
  /** /generate's require_reasoning: a grammar (sampling_params.json_schema / structural_tag) starts after the reasoning ends. */
  requireReasoning?: boolean;
}

const DEFAULT_RETRY_DELAYS = [100, 250, 500, 1000, 2000, 2000, 2000];

export class Generation {
  readonly ids: number[] = [];
  readonly logProbs: number[] = [];
  readonly weightVersions: WeightVersionSpan[] = [];
  private continued = 0;

  constructor(
    private readonly client: SglangClient,
    private readonly options: GenerationOptions,
  ) {}

  /** Streams token batches as the engine produces them; returns how the generation ended. */
  async *run(): AsyncGenerator<TokenBatch, GenerationResult> {
    const retryDelays = this.options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS;
    const maxContinuations = this.options.maxContinuations ?? 64;
    let failures = 0;
    let abortMessage: string | null = null;
    for (;;) {
      const remaining = this.options.maxNewTokens - this.ids.length;
      if (remaining <= 0) return this.result("length", null, abortMessage);
      // the first request's input_ids go out as the prompt builder's cached JSON parts when it has them; otherwise
      // (and for a continuation: prompt + tokens so far) as an array
      const inputIdsJsonParts = this.ids.length === 0 ? this.options.promptIdsJsonParts : undefined;
      // a grammar (tool_choice's json_schema or structural_tag) constrains an output from its start: a continuation,
      // whose output goes on from tokens already written, is sent without it (the grammar cannot resume mid-way)
      const continuing = this.ids.length > 0;
      const { json_schema: jsonSchema, structural_tag: structuralTag, ...unconstrained } = this.options.sampling;
      const grammar = jsonSchema ?? structuralTag;
      const request: GenerateRequest = {
        ...(inputIdsJsonParts ? {} : { input_ids: plainArray(this.options.promptIds).concat(this.ids) }),
        sampling_params: { ...(continuing ? unconstrained : this.options.sampling), max_new_tokens: remaining },
        return_logprob: true,
        ...(this.options.topLogprobs ? { top_logprobs_num: this.options.topLogprobs } : {}),
        ...(this.options.requireReasoning && !continuing && grammar !== undefined ? { require_reasoning: true } : {}),
      };
      let finish: SglangFinishReason | null = null;
      try {
        let seenInRequest = 0;
        for await (const chunk of this.client.generateStream(request, { signal: this.options.signal, onAccepted: this.options.onAccepted, inputIdsJsonParts })) {
          const fresh = takeNewTokens(chunk, seenInRequest);
          seenInRequest += fresh.taken;
          finish = chunk.meta_info.finish_reason ?? finish;
          if (fresh.ids.length > 0) {
            const version = chunk.meta_info.weight_version ?? "unknown";
            this.append(fresh.ids, fresh.logProbs, version);
            failures = 0;
            yield { ids: fresh.ids, logProbs: fresh.logProbs, ...(this.options.topLogprobs ? { top: fresh.top } : {}), version };
          }
          // no break at the finish: reading on to [DONE] keeps the connection reusable
        }
      } catch (error) {
        if (this.options.signal.aborted) throw error;
        const abortedByEngine = error instanceof EngineStatusError && error.status === 499;
        // a refused connection, or a socket cut mid-stream (fetch throws a plain TypeError then)
        const unreachable = !(error instanceof OpenclawRlError) || error.code === "ENGINE_UNAVAILABLE" || error.code === "TIMEOUT";
        if (abortedByEngine && this.continued < maxContinuations) {
          this.continued++;
          abortMessage = error.message;
          continue;
        }
        if (unreachable && this.ids.length > 0 && failures < retryDelays.length) {
          await sleep(retryDelays[failures++]!, this.options.signal);
          continue;
        }
        throw error;
      }
      if (!finish) {
        if (this.ids.length > 0 && failures < retryDelays.length) {
          await sleep(retryDelays[failures++]!, this.options.signal);
          continue;
        }
        throw new OpenclawRlError("ENGINE_ERROR", "the engine's stream ended without a finish reason", { retryable: true });
      }
      if (finish.type === "abort") {
        const status = finish.status_code ?? null;
        if (status === 400 || status === 500 || status === 503) {
          throw new EngineStatusError(status, `engine aborted the request: ${finish.message ?? "no reason given"}`);
        }
        abortMessage = finish.message ?? "aborted";
        if (this.continued >= maxContinuations) return this.result("abort", null, abortMessage);
        this.continued++;
        continue;
      }
      if (finish.type === "length") return this.result("length", null, abortMessage);
      return this.result("stop", finish.matched ?? null, abortMessage);
    }
  }

  get continuedAfterAbort(): number {
    return this.continued;
  }

  private append(ids: number[], logProbs: number[], version: string): void {
    const start = this.ids.length;
    for (let index = 0; index < ids.length; index++) {
      this.ids.push(ids[index]!);
      this.logProbs.push(logProbs[index]!);
    }
    const last = this.weightVersions[this.weightVersions.length - 1];
    if (last && last.version === version && last.end === start) last.end = this.ids.length;
    else this.weightVersions.push({ version, start, end: this.ids.length });
  }

  private result(finish: GenerationResult["finish"], matched: string | number | null, abortMessage: string | null): GenerationResult {
    return {
      ids: this.ids,
      logProbs: this.logProbs,
      weightVersions: this.weightVersions,
      finish,
      matched,
      continuedAfterAbort: this.continued,
      abortMessage,
    };
  }
}

/**
 * The tokens of a chunk not seen before in this request, in any of SGLang's three streaming forms. Each field is
 * read by its own form, decided from the chunk itself (its length against completion_tokens, which every form sends
 * cumulative), never from the recipe:
 * - cumulative (the default): output ids and log-probs repeat the whole answer so far;
 * - incremental (--incremental-streaming-output, 0.5.11+): both carry only what is new;
 * - legacy (--stream-output before 0.5.11, the fork's SGLang): output ids are new only, log-probs stay cumulative,
 *   and a reader that lags gets only the newest chunk, whose ids then lack the chunks it skipped.
 * A token counts only with its own log-prob entry, which names its id; output ids check those entries (an abort
 * from the waiting queue sends a stray last id without one).
 */
export function takeNewTokens(chunk: GenerateResponse, seen: number): { ids: number[]; logProbs: number[]; top: ([number, number][] | null)[]; taken: number } {
  const completion = chunk.meta_info.completion_tokens;
  const idsNew = newPart(chunk.output_ids ?? [], completion, seen);
  const entriesNew = newPart(chunk.meta_info.output_token_logprobs ?? [], completion, seen);
  const topsRaw = chunk.meta_info.output_top_logprobs ?? [];
  const topsNew = newPart(topsRaw, completion, seen); // (the alternatives stream the way the entries do)
  // ids fewer than entries: a lagging reader of the legacy form, whose ids are the newest chunk's only (the last ones)
  const idsOffset = idsNew.length < entriesNew.length ? entriesNew.length - idsNew.length : 0;
  const ids: number[] = [];
  const logProbs: number[] = [];
  const top: ([number, number][] | null)[] = [];
  for (let index = 0; index < entriesNew.length; index++) {
    const entry = entriesNew[index]!;
    const logProb = entry[0];
    if (logProb === null) break;
    const id = entry[1];
    const idIndex = index - idsOffset;
    if (idIndex >= 0 && idsNew[idIndex] !== id) {
      throw new OpenclawRlError("ENGINE_ERROR", `output id ${idsNew[idIndex]} does not match its log-prob entry's token ${id} (position ${seen + index})`, {
        hint: "the stream's output_ids and meta_info.output_token_logprobs disagree; check the engine version",
      });
    }
    ids.push(id);
    logProbs.push(logProb);
    const row = topsNew.length === entriesNew.length ? topsNew[index] : undefined;
    top.push(row ? row.filter((alternative) => alternative[0] !== null).map((alternative) => [alternative[0]!, alternative[1]] as [number, number]) : null);
  }
  const aborted = chunk.meta_info.finish_reason?.type === "abort";
  if (!aborted && ids.length < idsNew.length) {
    throw new OpenclawRlError("ENGINE_ERROR", `the engine sent ${idsNew.length} new output ids but ${ids.length} matching log-probs`, {
      hint: "the proxy needs return_logprob output entries for every token; check the engine version",
    });
  }
  return { ids, logProbs, top, taken: ids.length };
}

/** What is new in a streamed array (a module-level function, not a closure per chunk: this runs for every chunk). */
function newPart<Item>(items: readonly Item[], completion: number | undefined, seen: number): readonly Item[] {
  return holdsWholeAnswer(items.length, completion, seen) ? items.slice(seen) : items;
}

/**
 * Whether a streamed array holds the whole answer so far (then what is new starts at `seen`) or only what is new.
 * completion_tokens is cumulative in every form; the two readings differ only once something was sent before.
 */
function holdsWholeAnswer(length: number, completion: number | undefined, seen: number): boolean {
  if (completion === undefined) return seen > 0 && length >= seen; // (no count to compare with: an older engine)
  return length === completion && length > 0;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
