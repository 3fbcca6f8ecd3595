// The stand-in's control endpoints: pause / continue / abort, weight version and weights from disk, flush, and the
// info routes (server, model, models list, stand-in state). Generation itself lives in the generate routes.
import type { ServerResponse } from "node:http";
import type { PauseMode } from "./engine-state.ts";
import { sendError, sendJson, sendText, zodMessage } from "./http.ts";
import type { StandinRouteContext } from "./route-context.ts";
import { teacherForward } from "./teacher-forward.ts";
import { abortRequestSchema, pauseRequestSchema, updateWeightsFromDiskSchema, updateWeightVersionSchema } from "./wire.ts";

type ControlRoute = (server: StandinRouteContext, body: unknown, response: ServerResponse) => void | Promise<void>;

function setWeightVersion(server: StandinRouteContext, version: string): void {
  server.state.weightVersion = version;
  server.state.counters.weightUpdates += 1;
  server.log(`weight version is now ${version}`);
}

/** After a weight change: whoever keeps the weights (the weight-state file) is told; a failure is logged, not fatal. */
function weightsChanged(server: StandinRouteContext): void {
  try {
    server.options.onWeightsChanged?.(server.state.weightVersion);
  } catch (error) {
    server.log(`could not save the weight state: ${(error as Error).message}`);
  }
}

const pause: ControlRoute = (server, body, response) => {
  const parsed = pauseRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(response, 400, zodMessage(parsed.error));
  const aborted = server.state.pause(parsed.data.mode as PauseMode);
  server.log(`generation paused (mode ${parsed.data.mode}, ${aborted} in-flight request(s) aborted)`);
  sendJson(response, 200, { message: "Generation paused successfully." });
};

const continueGeneration: ControlRoute = (server, _body, response) => {
  server.state.resume();
  server.log(`generation continued (weight version ${server.state.weightVersion})`);
  sendJson(response, 200, { message: "Generation continued successfully." });
};

const abortRequest: ControlRoute = (server, body, response) => {
  const parsed = abortRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(response, 400, zodMessage(parsed.error));
  if (parsed.data.abort_all) server.state.abortAll();
  else server.state.abort(parsed.data.rid);
  sendText(response, 200, "");
};

const updateWeightVersion: ControlRoute = (server, body, response) => {
  const parsed = updateWeightVersionSchema.safeParse(body);
  if (!parsed.success) return sendError(response, 400, zodMessage(parsed.error));
  if (parsed.data.abort_all_requests) server.state.abortAll();
  setWeightVersion(server, parsed.data.new_version);
  weightsChanged(server);
  sendJson(response, 200, { success: true, message: `Weight version updated to ${parsed.data.new_version}`, new_version: parsed.data.new_version });
};

const updateWeightsFromDisk: ControlRoute = async (server, body, response) => {
  const parsed = updateWeightsFromDiskSchema.safeParse(body);
  if (!parsed.success) return sendError(response, 400, zodMessage(parsed.error));
  if (parsed.data.abort_all_requests) server.state.abortAll();
  try {
    await server.options.responder.loadWeights?.(parsed.data.model_path);
  } catch (error) {
    return sendJson(response, 400, { success: false, message: `Failed to load weights from ${parsed.data.model_path}: ${(error as Error).message}`, num_paused_requests: 0 });
  }
  if (parsed.data.weight_version !== undefined && parsed.data.weight_version !== null) setWeightVersion(server, parsed.data.weight_version);
  weightsChanged(server);
  sendJson(response, 200, { success: true, message: "Succeeded to update model weights.", num_paused_requests: 0 });
};

const flushCache: ControlRoute = (server, _body, response) => {
  server.state.flushCache();
  sendText(response, 200, "Cache flushed.\n");
};

const serverInfo: ControlRoute = (server, _body, response) =>
  sendJson(response, 200, {
    model_path: server.modelPath(),
    tokenizer_path: server.modelPath(),
    served_model_name: server.servedModelName(),
    host: "127.0.0.1",
    port: server.address?.port ?? null,
    weight_version: server.state.weightVersion,
    // dce8b060 ServerArgs has stream_output (the legacy form); 0.5.11+ has incremental_streaming_output
    ...(server.options.streamForm === "legacy" ? { stream_output: true } : { incremental_streaming_output: server.options.streamForm === "incremental" }),
    stream_interval: 1,
    reasoning_parser: "qwen3",
    tool_call_parser: "qwen25",
    standin: { role: server.role, note: "the model is a stand-in" },
    version: "standin",
  });

const modelInfo: ControlRoute = (server, _body, response) =>
  sendJson(response, 200, { model_path: server.modelPath(), tokenizer_path: server.modelPath(), is_generation: true, weight_version: server.state.weightVersion });

const models: ControlRoute = (server, _body, response) =>
  sendJson(response, 200, { object: "list", data: [{ id: server.servedModelName(), object: "model", created: Math.floor(Date.now() / 1000), owned_by: "sglang", root: server.modelPath(), max_model_len: 32768 }] });

/** Stand-in only (no SGLang equivalent): role, version, pause mode, counters and what the Responder shows. */
const standinState: ControlRoute = (server, _body, response) =>
  sendJson(response, 200, {
    role: server.role,
    note: "the model is a stand-in",
    weight_version: server.state.weightVersion,
    paused: server.state.pauseMode,
    in_flight: server.state.inFlight.size,
    token_delay_ms: server.state.tokenDelayMs,
    counters: server.state.counters,
    responder: server.options.responder.describe?.() ?? null,
  });

export const controlRoutes: Record<string, ControlRoute> = {
  "GET /get_weight_version": (server, _body, response) => sendJson(response, 200, { weight_version: server.state.weightVersion }),
  "POST /pause_generation": pause,
  "POST /continue_generation": continueGeneration,
  "POST /abort_request": abortRequest,
  "GET /flush_cache": flushCache,
  "POST /flush_cache": flushCache,
  "POST /update_weight_version": updateWeightVersion,
  "POST /update_weights_from_disk": updateWeightsFromDisk,
  "GET /get_server_info": serverInfo,
  "GET /server_info": serverInfo,
  "GET /get_model_info": modelInfo,
  "GET /model_info": modelInfo,
  "GET /v1/models": models,
  "GET /standin/state": standinState,
  "POST /standin/teacher_forward": teacherForward,
};
