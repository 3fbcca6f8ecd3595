// The recipe's `proxy` section: the OpenAI-compatible proxy's address, mode, limits and side requests. Ignores the engines.
import { z } from "zod";
import { port, positiveInt } from "./scalars.ts";

export const proxySchema = z
  .object({
    host: z.string().default("127.0.0.1").describe("Bind address of the OpenAI-compatible proxy; any non-loopback address requires an API key."),
    port: port.default(30000).describe("Port of the proxy (point OpenClaw here)."),
    api_key_env: z.string().default("OPENCLAW_RL_API_KEY").describe("Name of the environment variable that holds the proxy's Bearer key."),
    admin_port: port.default(30001).describe("Loopback port of the status API, event stream and dashboard."),
    mode: z
      .enum(["tokens", "passthrough"])
      .default("tokens")
      .describe("tokens: render + tokenize here and call /generate (token-exact); passthrough: forward to /v1/chat/completions (approximate samples)."),
    max_body_bytes: positiveInt.default(32 * 1024 * 1024).describe("Largest request body accepted."),
    request_timeout_s: z.number().positive().default(900).describe("Longest time one chat request may take end to end."),
    session_idle_timeout_s: z.number().positive().default(1800).describe("A session's last turn is closed (with no next state) after this long without a request."),
    max_sessions: positiveInt.default(10000).describe("Sessions kept in memory; the least recently used are closed beyond this."),
    utility_models: z
      .array(z.string())
      .default([])
      .describe(
        "Model ids whose requests are side requests (OpenClaw's agents.defaults.utilityModel; Claude Code's small/fast model). Empty: <model.served_name>-utility, the name agent-config gives Claude Code, is the one utility model.",
      ),
    side_system_prefixes: z
      .array(z.string())
      .default(["You are a context summarization assistant", "Write an Activity recap"])
      .describe("A request whose system prompt starts with one of these is a side request."),
  })
  .strict()
  .prefault({});
