// What the stand-in's route handlers may use of their server (its options, state, tokenizer, generation and scoring),
// so the routes depend on this shape and the server on the routes, not both on each other. Types only.
import type { AddressInfo } from "node:net";
import type { StreamForm } from "../../contracts/sglang.ts";
import type { StandinEngineState } from "./engine-state.ts";
import type { StandinGeneration } from "./generation.ts";
import type { Responder, StandinChatTemplate, StandinTokenizer } from "../model/responder.ts";

export interface StandinServerOptions {
  tokenizer: StandinTokenizer;
  responder: Responder;
  chatTemplate?: StandinChatTemplate;
  role?: "policy" | "judge";
  modelPath?: string;
  servedModelName?: string;
  host?: string;
  port?: number;
  tokenDelayMs?: number;
  weightVersion?: string;
  /** Which of SGLang's streaming forms the stream takes (default cumulative, SGLang's default). */
  streamForm?: StreamForm;
  /** Ids that end a generation besides stop_token_ids (default: <|im_end|> and <|endoftext|>). */
  eosTokenIds?: number[];
  /** Told after every weight change (update_weights_from_disk, update_weight_version), e.g. to save them. */
  onWeightsChanged?: (weightVersion: string) => void;
  log?: (line: string) => void;
}

export interface PreparedGeneration {
  generation: StandinGeneration;
  cachedTokens: number;
}

export interface StandinRouteContext {
  readonly options: StandinServerOptions;
  readonly state: StandinEngineState;
  readonly role: "policy" | "judge";
  readonly address: AddressInfo | null;
  readonly tokenizer: StandinTokenizer;
  admit(inputIds: readonly number[], samplingParams: Record<string, unknown>, rid: string | undefined, setUp?: (prepared: PreparedGeneration) => Promise<void>): Promise<PreparedGeneration>;
  run(prepared: PreparedGeneration): AsyncGenerator<StandinGeneration>;
  score(inputIds: readonly number[]): Promise<number[]>;
  servedModelName(): string;
  modelPath(): string;
  log(line: string): void;
}
