// `openclaw-rl agent-config codex|claude-code|qwen-code [--host H] [--write [FILE]] [--with-key]`: what a coding agent
// needs to use this proxy (Codex: the Responses API; Claude Code: the Messages API; Qwen Code: chat completions),
// printed, or merged into the agent's own config file without losing what is there (the old file kept beside it,
// each changed key printed, and the keys it kept).
import { homedir } from "node:os";
import path from "node:path";
import type { Command } from "commander";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { recipeFromOptions, withRecipeOptions, type CommonOptions } from "../common-options.ts";
import { formatRewrite } from "../config-changes.ts";
import { rewriteConfigFile } from "../config-file.ts";
import { AGENT_CLIENTS, type AgentName } from "./agent-clients.ts";
import { resolveApiKey } from "./openclaw-config.ts";

interface AgentConfigOptions extends CommonOptions {
  host?: string;
  write?: string | true;
  withKey?: boolean;
}

const AGENTS = Object.keys(AGENT_CLIENTS) as AgentName[];

export function registerAgentConfigCommand(program: Command): void {
  withRecipeOptions(program.command("agent-config").argument("<agent>", AGENTS.join(" | ")))
    .description("Print (or merge into the agent's config file) what Codex, Claude Code or Qwen Code needs to use this proxy")
    .option("--host <host>", "address the agent uses to reach the proxy (default: proxy.host, loopback for 0.0.0.0)")
    .option("--write [file]", "merge into the agent's config file (default ~/.codex/config.toml, ~/.claude/settings.json, ~/.qwen/.env; created 0600)")
    .option("--with-key", "put the real key from $<proxy.api_key_env> in the output instead of reading it from that variable")
    .action(async (agent: string, options: AgentConfigOptions) => {
      if (!AGENTS.includes(agent as AgentName)) {
        throw new OpenclawRlError("BAD_REQUEST", `unknown agent ${JSON.stringify(agent)}`, { hint: `use one of: ${AGENTS.join(", ")}` });
      }
      const client = AGENT_CLIENTS[agent as AgentName];
      const { recipe } = recipeFromOptions(options);
      const apiKey = options.withKey === true ? resolveApiKey(recipe, true, process.env) : null;
      const target = { host: options.host, apiKey };
      if (options.write === undefined) {
        process.stdout.write(client.print(recipe, target));
        return;
      }
      const file = path.resolve(options.write === true ? path.join(homedir(), client.defaultFile) : options.write);
      const rewrite = await rewriteConfigFile(file, (text) => client.merge(text, file, recipe, target));
      process.stdout.write(formatRewrite(rewrite, client.keys));
      if (apiKey === null) process.stdout.write(`${client.keyNote(recipe.proxy.api_key_env)}\n`);
      const shadowing = client.shadowing(process.env, recipe, target);
      if (shadowing.length > 0) {
        process.stdout.write(`note: this shell sets ${shadowing.join(", ")}, which ${agent} takes instead of the file's (unset ${shadowing.length === 1 ? "it" : "them"} before starting it)\n`);
      }
    });
}
