// What each coding agent needs to use the proxy, and how it is merged into that agent's own config file: Codex's
// config.toml (a model provider speaking the Responses API), Claude Code's settings.json, Qwen Code's .env. Without
// --with-key each works as written against a proxy with no key (agent-key.ts). Ignores the command line (agent-config.ts).
import type { Recipe } from "../../contracts/recipe.ts";
import { utilityModelName } from "../../lib/model/model-names.ts";
import { flattenDotenv, flattenJson, flattenToml } from "../config-changes.ts";
import { parseJsonConfig } from "../config-file.ts";
import { keyCommand, keyFromShell, NO_KEY_PLACEHOLDER } from "./agent-key.ts";
import { PROVIDER_ID, providerBaseUrl } from "./openclaw-config.ts";

export type AgentName = "codex" | "claude-code" | "qwen-code";

export interface AgentTarget {
  host?: string;
  /** The proxy key itself (--with-key), else null: the agent reads it from $<proxy.api_key_env>. */
  apiKey: string | null;
}

export interface AgentClient {
  /** The config file --write merges into by default (relative to the home directory). */
  defaultFile: string;
  /** What to print: the config snippet or the shell exports. */
  print(recipe: Recipe, target: AgentTarget): string;
  /** The file's new text with our entries merged in; everything else in it stays. */
  merge(text: string | null, file: string, recipe: Recipe, target: AgentTarget): string;
  /** The file's keys as text, by path, for saying what a merge changed. */
  keys(text: string | null): Record<string, string>;
  /** Said after --write without --with-key: where the agent's key now comes from. */
  keyNote(variable: string): string;
  /** Variables set in `environment` that the agent takes instead of the written file's (none when the file wins). */
  shadowing(environment: Record<string, string | undefined>, recipe: Recipe, target: AgentTarget): string[];
}

interface CodexLines {
  top: string[];
  /** Our provider table, replacing one of the same name. */
  table: string[];
  /** Keys we set in one more table (its header, then the lines), that table's other keys kept. */
  section: { header: string; lines: string[] };
}

/**
 * Codex's provider, and off what the proxy cannot serve: OpenAI's hosted web search (a `web_search` tool) and the
 * multi-agent tools (a `namespace` tool): the proxy serves function tools only and refuses a request offering others.
 */
function codexLines(recipe: Recipe, target: AgentTarget): CodexLines {
  const header = `[model_providers.${PROVIDER_ID}]`;
  return {
    top: [`model = ${JSON.stringify(recipe.model.served_name)}`, `model_provider = ${JSON.stringify(PROVIDER_ID)}`, `web_search = "disabled"`],
    // (`[agents] enabled = false`: `[features] multi_agent = false` does it too, but Codex calls that deprecated)
    section: { header: "[agents]", lines: ["enabled = false"] },
    table: [
      header,
      `name = "openclaw-rl proxy"`,
      `base_url = ${JSON.stringify(providerBaseUrl(recipe, target.host))}`,
      `wire_api = "responses"`,
      // (not env_key: Codex refuses to start while that variable is unset; its auth command may print a placeholder)
      target.apiKey === null
        ? `auth = { command = "sh", args = ["-c", ${JSON.stringify(keyCommand(recipe.proxy.api_key_env))}] }`
        : `experimental_bearer_token = ${JSON.stringify(target.apiKey)}`,
    ],
  };
}

/**
 * Line-level TOML merge (no TOML parser here): our top-level keys replace theirs above the first table, our provider
 * table replaces a table of the same name, our keys of `lines.section` replace theirs in that table (added to it, or a new
 * one); every other line, comments included, stays as it was.
 */
export function mergeCodexToml(text: string | null, lines: CodexLines): string {
  const existing = text === null || text === "" ? [] : text.replace(/\n$/, "").split("\n");
  const isHeader = (line: string): boolean => /^\s*\[/.test(line);
  const firstTable = existing.findIndex(isHeader);
  const topEnd = firstTable === -1 ? existing.length : firstTable;
  const ourKeys = new Set(lines.top.map((line) => line.split("=")[0]!.trim()));
  const top = existing.slice(0, topEnd).filter((line) => !ourKeys.has(/^\s*([A-Za-z0-9_-]+)\s*=/.exec(line)?.[1] ?? ""));
  const sectionKeys = new Set(lines.section.lines.map((line) => line.split("=")[0]!.trim()));
  const rest: string[] = [];
  let skipping = false;
  let inSection = false;
  let hasSection = false;
  for (const line of existing.slice(topEnd)) {
    if (isHeader(line)) {
      skipping = line.trim() === lines.table[0];
      inSection = line.trim() === lines.section.header;
      if (inSection) {
        hasSection = true;
        rest.push(line, ...lines.section.lines);
        continue;
      }
    }
    if (inSection && sectionKeys.has(/^\s*([A-Za-z0-9_-]+)\s*=/.exec(line)?.[1] ?? "")) continue;
    if (!skipping) rest.push(line);
  }
  if (!hasSection) rest.push(...(rest.length > 0 ? [""] : []), lines.section.header, ...lines.section.lines);
  for (const section of [top, rest]) while (section.length > 0 && section.at(-1)!.trim() === "") section.pop();
  const body = [...lines.top, ...top, ...(rest.length > 0 ? ["", ...rest] : []), "", ...lines.table];
  return `${body.join("\n").replace(/^\n+/, "")}\n`;
}

/** The environment each env-configured agent reads, its key only when given (--with-key). */
function claudeCodeEnv(recipe: Recipe, target: AgentTarget): Record<string, string> {
  const base = providerBaseUrl(recipe, target.host).replace(/\/v1$/, ""); // (the SDK adds /v1/messages)
  return {
    ANTHROPIC_BASE_URL: base,
    ...(target.apiKey === null ? {} : { ANTHROPIC_AUTH_TOKEN: target.apiKey }),
    ANTHROPIC_MODEL: recipe.model.served_name,
    // every model name Claude Code can pick (its subagents' sonnet / opus / haiku too) is one the proxy serves
    ANTHROPIC_DEFAULT_SONNET_MODEL: recipe.model.served_name,
    ANTHROPIC_DEFAULT_OPUS_MODEL: recipe.model.served_name,
    ANTHROPIC_SMALL_FAST_MODEL: utilityModelName(recipe),
    ANTHROPIC_DEFAULT_HAIKU_MODEL: utilityModelName(recipe),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
}

function qwenCodeEnv(recipe: Recipe, target: AgentTarget): Record<string, string> {
  return {
    OPENAI_BASE_URL: providerBaseUrl(recipe, target.host),
    ...(target.apiKey === null ? {} : { OPENAI_API_KEY: target.apiKey }),
    OPENAI_MODEL: recipe.model.served_name,
  };
}

/** `export` lines; without the key itself, `keyVariable` is read from $<proxy.api_key_env>, else the placeholder. */
function shellExports(env: Record<string, string>, keyVariable: string | null, variable: string): string {
  const lines = Object.entries(env).map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  if (keyVariable !== null) lines.push(`export ${keyVariable}="${keyFromShell(variable)}"`);
  return `${lines.join("\n")}\n`;
}

function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** KEY=VALUE lines: ours replace lines setting the same names, the rest (comments too) stay. */
export function mergeDotenv(text: string | null, env: Record<string, string>): string {
  const kept = (text ?? "").split("\n").filter((line) => {
    const name = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    return name === undefined || !(name in env);
  });
  while (kept.length > 0 && kept.at(-1)!.trim() === "") kept.pop();
  return `${[...kept, ...Object.entries(env).map(([name, value]) => `${name}=${JSON.stringify(value)}`)].join("\n")}\n`;
}

export const AGENT_CLIENTS: Record<AgentName, AgentClient> = {
  codex: {
    defaultFile: ".codex/config.toml",
    print: (recipe, target) => {
      const lines = codexLines(recipe, target);
      const note = target.apiKey === null ? `# Codex sends $${recipe.proxy.api_key_env} as the proxy's key, "${NO_KEY_PLACEHOLDER}" when it is unset\n` : "";
      return `# ~/.codex/config.toml\n${note}${mergeCodexToml(null, lines)}`;
    },
    merge: (text, _file, recipe, target) => mergeCodexToml(text, codexLines(recipe, target)),
    keys: flattenToml,
    keyNote: (variable) => `Codex sends $${variable} as the proxy's key when it is set, else "${NO_KEY_PLACEHOLDER}" (a proxy started without a key takes any)`,
    shadowing: () => [],
  },
  "claude-code": {
    defaultFile: ".claude/settings.json",
    print: (recipe, target) => shellExports(claudeCodeEnv(recipe, target), target.apiKey === null ? "ANTHROPIC_AUTH_TOKEN" : null, recipe.proxy.api_key_env),
    merge: (text, file, recipe, target) => {
      const settings = parseJsonConfig(file, text, "fix the file (settings.json must be plain JSON), or print the settings without --write and set them by hand");
      const env: Record<string, unknown> = typeof settings.env === "object" && settings.env !== null && !Array.isArray(settings.env) ? { ...settings.env } : {};
      if (target.apiKey !== null) return `${JSON.stringify({ ...settings, env: { ...env, ...claudeCodeEnv(recipe, target) } }, null, 2)}\n`;
      // the key comes from apiKeyHelper, a command Claude Code runs; an ANTHROPIC_AUTH_TOKEN in env would win over it
      delete env.ANTHROPIC_AUTH_TOKEN;
      return `${JSON.stringify({ ...settings, apiKeyHelper: keyCommand(recipe.proxy.api_key_env), env: { ...env, ...claudeCodeEnv(recipe, target) } }, null, 2)}\n`;
    },
    keys: (text) => flattenJson(text === null || text.trim() === "" ? {} : JSON.parse(text)),
    keyNote: (variable) => `Claude Code sends $${variable} as the proxy's key when it is set (apiKeyHelper), else "${NO_KEY_PLACEHOLDER}" (a proxy started without a key takes any)`,
    shadowing: () => [], // (settings.json's env wins over the shell's)
  },
  "qwen-code": {
    defaultFile: ".qwen/.env",
    print: (recipe, target) => shellExports(qwenCodeEnv(recipe, target), target.apiKey === null ? "OPENAI_API_KEY" : null, recipe.proxy.api_key_env),
    // (a .env file cannot read another variable: without the key, the placeholder; a variable set when Qwen Code starts wins)
    merge: (text, _file, recipe, target) => mergeDotenv(text, { ...qwenCodeEnv(recipe, target), OPENAI_API_KEY: target.apiKey ?? NO_KEY_PLACEHOLDER }),
    keys: flattenDotenv,
    keyNote: (variable) =>
      `Qwen Code sends "${NO_KEY_PLACEHOLDER}" as the proxy's key (a proxy started without a key takes any); for a proxy started with $${variable} set, start Qwen Code with OPENAI_API_KEY="$${variable}" or write the key with --with-key`,
    // Qwen Code takes a variable already set (non-empty) over its .env file's
    shadowing: (environment, recipe, target) => Object.keys({ ...qwenCodeEnv(recipe, target), OPENAI_API_KEY: "" }).filter((name) => (environment[name] ?? "") !== ""),
  },
};
