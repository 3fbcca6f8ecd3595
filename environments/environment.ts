// What a concrete environment implements for the lease server: start an episode from a task's meta (the first user
// message, the tools, a state of its own), run a tool call, score the episode, release it. Leases, HTTP and timeouts
// are the lease server's; an environment never sees a lease id.

/** A tool call as /exec_tool carries it; `arguments` is an object over HTTP (the lease server refuses anything else, as the reference's pool does), or JSON text of one when called directly. */
export interface ToolCall {
  name: string;
  arguments: unknown;
}

/** An OpenAI function tool, as /reset's tool_schemas lists them. */
export interface FunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface EpisodeStart<State> {
  userMessage: string;
  toolSchemas: FunctionTool[];
  state: State;
}

/** A score and what else the evaluation found (the SWE environment's final patch); /evaluate answers both. */
export interface Evaluation {
  score: number;
  details?: Record<string, unknown>;
}

export interface Environment<State> {
  /** The name /status reports (`toolcall`, `terminal`). */
  readonly kind: string;
  /** Starts an episode (`runContext`: /reset's run_ctx, the client's ids of the episode); a task it cannot read or set up is an OpenclawRlError BAD_REQUEST saying why (HTTP 500 {ok: false, error}, as the reference's pool answers a task it cannot start). */
  reset(taskMeta: Record<string, unknown>, runContext?: Record<string, unknown>): Promise<EpisodeStart<State>>;
  /** The observation of one call. Bad arguments, an unknown tool, a crash or a timeout inside are observations too. */
  execTool(state: State, call: ToolCall): Promise<string>;
  /** A score in [0, 1], alone or with details that /evaluate's answer carries beside it. */
  evaluate(state: State): Promise<number | Evaluation>;
  /** Releases what the episode holds (a sandbox folder); called once, on /close, a second /reset or reaping. */
  close(state: State): Promise<void>;
}
