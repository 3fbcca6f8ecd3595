// Drives the real coding agents (installed by tests/e2e/prepare.sh) as a user would, one non-interactive call per
// user turn, each with its HOME and state in a temp folder and the config `openclaw-rl agent-config <agent>` wrote
// there (--write) or printed: Codex (`codex exec`, Responses API), Claude Code (`claude -p`, Messages API), Qwen Code
// (`qwen -p`, chat completions). Knows nothing of openclaw-rl's internals.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { NODE24_BIN } from "./openclaw-client.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const AGENTS = path.join(ROOT, ".cache/agents-e2e");
export const AGENT_BINS = {
  codex: path.join(AGENTS, "codex/node_modules/.bin/codex"),
  "claude-code": path.join(AGENTS, "claude/node_modules/.bin/claude"),
  "qwen-code": path.join(AGENTS, "qwen/node_modules/.bin/qwen"),
} as const;
export type AgentName = keyof typeof AGENT_BINS;
/** Where `agent-config <agent> --write` writes by default, under the home folder. */
export const AGENT_CONFIG_FILES: Record<AgentName, string> = { codex: ".codex/config.toml", "claude-code": ".claude/settings.json", "qwen-code": ".qwen/.env" };

export function agentsInstalled(): boolean {
  return Object.values(AGENT_BINS).every((bin) => existsSync(bin)) && existsSync(path.join(NODE24_BIN, "node"));
}

export interface AgentTurn {
  prompt: string;
  exitCode: number | undefined;
  /** The agent's final answer, as its own JSON output says it. */
  text: string | null;
  /** The agent's own error for the turn, if its JSON output reports one. */
  error: string | null;
  /** The agent's conversation id (Codex's thread id, Claude Code's and Qwen Code's session id). */
  conversation: string | null;
  /** Tools the agent ran in this turn, with what they returned, as its JSON output says. */
  tools: { name: string; output: string }[];
  stdout: string;
  stderrTail: string;
}

export interface AgentSession {
  agent: AgentName;
  home: string;
  /** The folder the agent works in (its cwd), holding notes.txt. */
  work: string;
  /** The agent's config as `openclaw-rl agent-config` printed it. */
  config: string;
  turns: AgentTurn[];
  say(prompt: string): Promise<AgentTurn>;
}

/** `export NAME=value` lines as agent-config prints them, as bash reads them: `"$VAR"` and `"${VAR:-default}"` from `env`. */
export function parseExports(text: string, env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (!match) continue;
    const raw = match[2]!;
    const variable = /^"\$([A-Za-z_][A-Za-z0-9_]*)"$/.exec(raw);
    const withDefault = /^"\$\{([A-Za-z_][A-Za-z0-9_]*):-([^}"]*)\}"$/.exec(raw);
    if (withDefault) out[match[1]!] = env[withDefault[1]!] || withDefault[2]!;
    else out[match[1]!] = variable ? (env[variable[1]!] ?? "") : raw.replace(/^'(.*)'$/, "$1");
  }
  return out;
}

/** A throwaway home for one agent, with its working folder (work/notes.txt). */
export function agentHome(agent: AgentName): string {
  const home = mkdtempSync(path.join(os.tmpdir(), `agent-e2e-${agent}-`));
  mkdirSync(path.join(home, "work"), { recursive: true });
  writeFileSync(path.join(home, "work", "notes.txt"), "hello from the e2e notes\n");
  return home;
}

/**
 * One agent's session in `home`: `written`, the config `agent-config <agent> --write` put in that home, read by the
 * agent as a user's would be; else `config` as agent-config printed it, written where Codex reads it or kept as the
 * environment. `keyEnv` is the only other variable the agent gets (empty: no key set).
 */
export function createAgentSession(agent: AgentName, config: string, keyEnv: Record<string, string>, home = agentHome(agent), written = false): AgentSession {
  const work = path.join(home, "work");
  const env: Record<string, string> = { PATH: `${NODE24_BIN}:/usr/local/bin:/usr/bin:/bin`, HOME: home, ...keyEnv };
  if (!written && agent === "codex") {
    mkdirSync(path.join(home, ".codex"), { recursive: true });
    writeFileSync(path.join(home, ".codex", "config.toml"), config.replace(/^#.*\n/gm, ""));
  } else if (!written) Object.assign(env, parseExports(config, keyEnv));
  if (agent === "claude-code") Object.assign(env, { DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1", DISABLE_ERROR_REPORTING: "1" });
  if (agent === "qwen-code") env.QWEN_CODE_SUPPRESS_YOLO_WARNING = "1";
  const session: AgentSession = {
    agent,
    home,
    work,
    config,
    turns: [],
    async say(prompt) {
      const previous = session.turns.at(-1)?.conversation ?? null;
      const turn = await runAgentTurn(agent, env, work, prompt, previous);
      session.turns.push(turn);
      return turn;
    },
  };
  return session;
}

function argvFor(agent: AgentName, prompt: string, conversation: string | null): string[] {
  if (agent === "codex") {
    const base = ["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--json"];
    return conversation ? [...base, "resume", conversation, prompt] : [...base, prompt];
  }
  if (agent === "claude-code") {
    // (--dangerously-skip-permissions is refused as root: allow the read-only tools and Bash by name instead)
    return ["-p", prompt, "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash", "Read", "Glob", "Grep", ...(conversation ? ["--resume", conversation] : [])];
  }
  return ["-p", prompt, "--yolo", "--output-format", "json", ...(conversation ? ["--resume", conversation] : [])];
}

async function runAgentTurn(agent: AgentName, env: Record<string, string>, cwd: string, prompt: string, conversation: string | null): Promise<AgentTurn> {
  const result = await execa(AGENT_BINS[agent], argvFor(agent, prompt, conversation), { env, extendEnv: false, reject: false, timeout: 180_000, cwd, stdin: "ignore" });
  const stdout = String(result.stdout);
  const read = agent === "codex" ? readCodex(stdout) : agent === "claude-code" ? readClaude(stdout) : readQwen(stdout);
  return { prompt, exitCode: result.exitCode, stdout, stderrTail: String(result.stderr).slice(-2000), ...read, conversation: read.conversation ?? conversation };
}

type Read = Pick<AgentTurn, "text" | "error" | "conversation" | "tools">;

function jsonLines(text: string): Record<string, any>[] {
  return text.split("\n").flatMap((line) => {
    try {
      const value = JSON.parse(line) as unknown;
      return typeof value === "object" && value !== null ? [value as Record<string, any>] : [];
    } catch {
      return [];
    }
  });
}

/** `codex exec --json`: thread.started, item.completed (command_execution, agent_message), turn.completed. */
function readCodex(stdout: string): Read {
  const events = jsonLines(stdout);
  const items = events.filter((event) => event.type === "item.completed").map((event) => event.item as Record<string, any>);
  return {
    conversation: events.find((event) => event.type === "thread.started")?.thread_id ?? null,
    text: items.filter((item) => item.type === "agent_message").at(-1)?.text ?? null,
    error: events.find((event) => event.type === "turn.failed")?.error?.message ?? null,
    tools: items.filter((item) => item.type === "command_execution").map((item) => ({ name: String(item.command), output: String(item.aggregated_output ?? "") })),
  };
}

/** `claude -p --output-format stream-json --verbose`: one message a line (system init, assistant, user tool results, result). */
function readClaude(stdout: string): Read {
  return readMessages(jsonLines(stdout));
}

/** `qwen -p --output-format json`: the same messages as one array. */
function readQwen(stdout: string): Read {
  try {
    const parsed = JSON.parse(stdout.slice(stdout.indexOf("["))) as unknown;
    return readMessages(Array.isArray(parsed) ? (parsed as Record<string, any>[]) : []);
  } catch {
    return readMessages([]); // (the assertion that follows shows stdout)
  }
}

function readMessages(messages: readonly Record<string, any>[]): Read {
  const result = messages.find((message) => message.type === "result");
  const blocks = messages.flatMap((message) => (Array.isArray(message.message?.content) ? (message.message.content as Record<string, any>[]) : []));
  const uses = new Map(blocks.filter((block) => block.type === "tool_use").map((block) => [block.id, `${String(block.name)} ${JSON.stringify(block.input)}`]));
  return {
    conversation: result?.session_id ?? null,
    text: result && result.is_error !== true && typeof result.result === "string" ? result.result : null,
    error: result?.is_error === true ? String(result.error?.message ?? result.result ?? "error") : null,
    tools: blocks.filter((block) => block.type === "tool_result").map((block) => ({ name: uses.get(block.tool_use_id) ?? "?", output: typeof block.content === "string" ? block.content : JSON.stringify(block.content) })),
  };
}

/** A short transcript for the test's log: each prompt, the tools run, the answer. */
export function transcript(session: AgentSession): string {
  return session.turns
    .map((turn) => [`> ${turn.prompt}`, ...turn.tools.map((tool) => `  [tool ${tool.name}] ${tool.output.trim().slice(0, 120)}`), `< ${turn.text ?? `(no answer; exit ${turn.exitCode}) ${turn.error ?? turn.stderrTail.slice(-300)}`}`].join("\n"))
    .join("\n");
}
