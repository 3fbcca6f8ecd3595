// A CPU stand-in that speaks the part of SGLang's native HTTP API openclaw-rl uses, with SGLang's real wire shapes;
// what "the model" says comes from a pluggable Responder. It owns routing and request lifecycles, not the policy.
//
// How tests use it:
//   const files = await loadTokenizerFiles("builtin:qwen3");          // lib/model
//   const server = new StandinSglangServer({
//     tokenizer: new ModelTokenizer(files),                            // or anything with encode/decode/tokenId
//     chatTemplate: new ChatTemplate(files),                           // only needed for /v1/chat/completions
//     responder: { reply: ({ promptText }) => ({ text: "<think>\nok\n</think>\n\nHello!" }) },
//     tokenDelayMs: 20,                                                // per streamed token, so a test can pause mid-way
//   });
//   const { url } = await server.start();                              // 127.0.0.1, port 0 (ephemeral) by default
//   ... new SglangClient({ baseUrl: url }) ...; server.setTokenDelay(0); await server.close();
// Endpoints: POST /generate (stream or not), /pause_generation {"mode":"abort"|"in_place"|"retract"},
// /continue_generation, /abort_request, GET|POST /flush_cache, GET /health, /health_generate, /get_weight_version,
// POST /update_weight_version {"new_version"}, POST /update_weights_from_disk {"model_path","weight_version"?}
// (the Responder's loadWeights reads the file), GET /get_server_info, /get_model_info, /v1/models,
// POST /v1/chat/completions, and the stand-in's own GET /standin/state. Weight version starts at "default" (SGLang's own default) unless options say otherwise.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { handleChatCompletions } from "./chat-completions.ts";
import { controlRoutes } from "./control-routes.ts";
import { StandinEngineState } from "./engine-state.ts";
import { StandinGeneration, type GenerationLimits } from "./generation.ts";
import { HttpProblem, readJsonBody, sendError, sendText } from "./http.ts";
import { hashLogprob, hashScore, type StandinTokenizer } from "../model/responder.ts";
import { streamGenerate, wholeGenerate } from "./generate-route.ts";
import type { PreparedGeneration, StandinRouteContext, StandinServerOptions } from "./route-context.ts";

export type { PreparedGeneration, StandinServerOptions };

export class StandinSglangServer implements StandinRouteContext {
  readonly state: StandinEngineState;
  readonly role: "policy" | "judge";
  private readonly server: Server;
  private readonly eosIds: number[];
  address: AddressInfo | null = null;

  constructor(readonly options: StandinServerOptions) {
    this.role = options.role ?? "policy";
    this.state = new StandinEngineState({ weightVersion: options.weightVersion ?? "default", tokenDelayMs: options.tokenDelayMs ?? 0 });
    const ids = options.eosTokenIds ?? [options.tokenizer.tokenId("<|im_end|>"), options.tokenizer.tokenId("<|endoftext|>")];
    this.eosIds = ids.filter((id): id is number => id !== undefined);
    this.server = createServer((request, response) => {
      this.route(request, response).catch((error: unknown) => this.fail(response, error));
    });
  }

  get tokenizer(): StandinTokenizer {
    return this.options.tokenizer;
  }

  get url(): string {
    if (!this.address) throw new Error("stand-in server not started");
    return `http://127.0.0.1:${this.address.port}`;
  }

  async start(): Promise<{ url: string; port: number }> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.options.port ?? 0, this.options.host ?? "127.0.0.1", () => resolve());
    });
    this.address = this.server.address() as AddressInfo;
    return { url: this.url, port: this.address.port };
  }

  async close(): Promise<void> {
    this.state.resume();
    this.state.abortAll();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  setTokenDelay(ms: number): void {
    this.state.tokenDelayMs = ms;
  }

  /** Builds one generation: asks the Responder, tokenizes its reply, applies SGLang's sampling limits. */
  async prepare(inputIds: readonly number[], samplingParams: Record<string, unknown>, rid: string | undefined): Promise<PreparedGeneration> {
    const tokenizer = this.options.tokenizer;
    const id = rid ?? randomBytes(16).toString("hex");
    const params = samplingParams as { max_new_tokens?: number | null; stop?: string | string[] | null; stop_token_ids?: number[] | null; skip_special_tokens?: boolean; no_stop_trim?: boolean; ignore_eos?: boolean };
    const limits: GenerationLimits = {
      maxNewTokens: params.max_new_tokens ?? 128,
      stopTokenIds: new Set([...(params.ignore_eos ? [] : this.eosIds), ...(params.stop_token_ids ?? [])]),
      stopStrings: typeof params.stop === "string" ? [params.stop] : (params.stop ?? []),
      skipSpecialTokens: params.skip_special_tokens ?? true,
      noStopTrim: params.no_stop_trim ?? false,
    };
    let planIds: number[] = [];
    let planLogprobs: number[] = [];
    if (limits.maxNewTokens > 0) {
      const promptText = tokenizer.decode(inputIds, { skipSpecialTokens: false });
      const reply = await this.options.responder.reply({ promptText, inputIds, samplingParams, rid: id, weightVersion: this.state.weightVersion });
      planIds = reply.tokenIds ? [...reply.tokenIds] : await tokenizer.encode(reply.text ?? "");
      const stop = this.eosIds[0];
      if (reply.appendStop !== false && stop !== undefined) planIds.push(stop);
      planLogprobs = planIds.map((token, index) => reply.logprobs?.[index] ?? hashLogprob(index === 0 ? (inputIds.at(-1) ?? 0) : (planIds[index - 1] ?? 0), token));
    }
    const generation = new StandinGeneration(id, inputIds, planIds, planLogprobs, limits, (ids, options) => (ids.length === 0 ? "" : tokenizer.decode(ids, options)));
    return { generation, cachedTokens: this.state.cachedTokens(inputIds) };
  }

  /** Prefill scores of the input (result[p] = log P(ids[p] | ids[:p])). */
  async score(inputIds: readonly number[]): Promise<number[]> {
    const responder = this.options.responder;
    if (!responder.score) return hashScore(inputIds);
    const promptText = this.options.tokenizer.decode(inputIds, { skipSpecialTokens: false });
    return responder.score({ inputIds, promptText, weightVersion: this.state.weightVersion });
  }

  /**
   * Waits while paused, prepares the generation (and whatever `setUp` needs of the current weights), and tracks it
   * as in flight at once, so a pause that lands while preparing sends it back to wait instead of letting it run
   * on weights that are being replaced.
   */
  async admit(inputIds: readonly number[], samplingParams: Record<string, unknown>, rid: string | undefined, setUp?: (prepared: PreparedGeneration) => Promise<void>): Promise<PreparedGeneration> {
    for (;;) {
      await this.state.whenUnpaused();
      const prepared = await this.prepare(inputIds, samplingParams, rid);
      await setUp?.(prepared);
      if (this.state.paused) continue;
      this.state.inFlight.add(prepared.generation);
      this.state.counters.requests += 1;
      return prepared;
    }
  }

  /** Runs an admitted generation to its end with the engine's gate; pause/abort reach it while it runs. */
  async *run(prepared: PreparedGeneration): AsyncGenerator<StandinGeneration> {
    const { generation } = prepared;
    this.state.inFlight.add(generation);
    try {
      const gate = { tokenDelayMs: () => this.state.tokenDelayMs, whenRunning: () => this.state.whenRunning() };
      for await (const _ of generation.run(gate)) yield generation;
    } finally {
      this.state.inFlight.delete(generation);
      if (generation.finishReason?.type === "abort") this.state.counters.aborted += 1;
      else this.state.counters.finished += 1;
      this.state.remember([...generation.inputIds, ...generation.outputIds]);
    }
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? "/").split("?")[0];
    const method = request.method ?? "GET";
    switch (`${method} ${path}`) {
      case "POST /generate":
        return this.generate(request, response);
      case "POST /v1/chat/completions":
        return handleChatCompletions(this, await readJsonBody(request), response);
      case "GET /health":
      case "GET /health_generate":
        return sendText(response, 200, "");
      default: {
        const control = controlRoutes[`${method} ${path}`];
        if (control) return control(this, method === "POST" ? await readJsonBody(request) : {}, response);
        return sendError(response, 404, `no route ${method} ${path} on the stand-in SGLang server`);
      }
    }
  }

  servedModelName(): string {
    return this.options.servedModelName ?? this.modelPath();
  }

  modelPath(): string {
    return this.options.modelPath ?? "builtin:qwen3";
  }

  private async generate(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readJsonBody(request);
    const stream = typeof body === "object" && body !== null && (body as { stream?: unknown }).stream === true;
    return stream ? streamGenerate(this, body, response) : wholeGenerate(this, body, response);
  }

  log(line: string): void {
    this.options.log?.(`[standin-${this.role}] ${line}`);
  }

  private fail(response: ServerResponse, error: unknown): void {
    if (response.headersSent) {
      if (!response.writableEnded) response.end();
      return;
    }
    if (error instanceof HttpProblem) return sendError(response, error.status, error.message);
    this.log(`internal error: ${(error as Error).stack ?? String(error)}`);
    sendError(response, 500, `stand-in internal error: ${(error as Error).message}`);
  }
}
