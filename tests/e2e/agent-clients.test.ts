// The real coding agents from npm (Codex 0.171.0 on the Responses API, Claude Code 2.1.332 on the Messages API, Qwen
// Code 0.24.4 on chat completions) attached to `openclaw-rl start` on the rehearsal engine. As the README sets them up:
// no proxy key, each agent's config written by `openclaw-rl agent-config <agent> --write` into its home, no key in its
// environment; a few turns each with a tool the agent runs itself, then (Claude Code, Qwen Code) a compaction, the
// agent's own side request. Checks what was captured, with which session and next state. Then a proxy with a key: the
// printed configs send it from $OPENCLAW_RL_API_KEY, and without it the proxy refuses them.
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { BUILTIN_QWEN3, loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { agentHome, agentsInstalled, AGENT_CONFIG_FILES, createAgentSession, transcript, type AgentName, type AgentSession } from "./support/agent-clients.ts";
import { readJsonl } from "../support/jsonl.ts";
import { freePort, until } from "../support/loopback.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const API_KEY = "e2e-proxy-key";
const SAY_HI = "Say hi in one word.";
const UTILITY = "qwen3-util";

/** Each agent's user turns; the first asks for a tool the agent offers (the stand-in policy calls it), the last of two is a compaction. */
const SCRIPTS: Record<AgentName, (work: string) => string[]> = {
  codex: () => ["Run `ls` in the current folder.", "Thanks. Which of them looks like notes?"],
  "claude-code": (work) => [`Read ${work}/notes.txt`, "Thanks. Is it a short file?", "/compact"],
  "qwen-code": () => ["List the files matching `*.txt`.", "Thanks. Which of them looks like notes?", "/compress"],
};
const SIDE_PROMPTS = ["/compact", "/compress"];
const COMPACTION_TEXTS = ["Your task is to create a detailed summary of the conversation so far", "You are the component that summarizes a conversation"];
/** This process's environment without the proxy key: what the CLI and the proxy get when the user set none. */
const NO_KEY_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "OPENCLAW_RL_API_KEY")) as Record<string, string>;

/** `openclaw-rl start` (rehearsal) on free ports, ready; with `apiKey`, the proxy requires it. */
async function startProxy(runDir: string, apiKey: string | null): Promise<{ start: ReturnType<typeof execa>; proxyPort: number }> {
  const proxyPort = await freePort();
  const sets = {
    "records.dir": runDir,
    "proxy.port": proxyPort,
    "proxy.admin_port": await freePort(),
    "proxy.utility_models": `[${UTILITY}]`,
    "engine.rehearsal.policy_port": await freePort(),
    "engine.rehearsal.judge_port": await freePort(),
    "engine.rehearsal.train_seconds": 0.2,
    "training.batch_size": 2,
    "training.max_staleness": 50,
  };
  const setArgs = Object.entries(sets).flatMap(([key, value]) => ["--set", `${key}=${value}`]);
  const env = apiKey === null ? NO_KEY_ENV : { ...NO_KEY_ENV, OPENCLAW_RL_API_KEY: apiKey };
  const start = execa(process.execPath, ["bin/openclaw-rl.mjs", "start", "--method", "combine", ...setArgs], { cwd: root, reject: false, all: true, env, extendEnv: false });
  await until("the proxy to be ready", async () => ((await fetch(`http://127.0.0.1:${proxyPort}/readyz`)).ok ? true : null), 120_000);
  return { start, proxyPort };
}

/** Ctrl-C to a start still running. */
async function stopProxy(start: ReturnType<typeof execa> | null): Promise<void> {
  if (!start) return;
  start.kill("SIGINT");
  await start;
}

/** agent-config's arguments for this proxy. */
const agentConfigArgs = (agent: AgentName, proxyPort: number) => ["bin/openclaw-rl.mjs", "agent-config", agent, "--set", `proxy.port=${proxyPort}`, "--set", `proxy.utility_models=[${UTILITY}]`];

describe("Codex, Claude Code and Qwen Code end to end (rehearsal engine)", () => {
  let runDir = "";
  let proxyPort = 0;
  let start: ReturnType<typeof execa> | null = null;
  const sessions: Partial<Record<AgentName, AgentSession>> = {};
  const writes: Partial<Record<AgentName, string>> = {};
  let statusDuring: Record<string, any> = {};
  let turns: Record<string, any>[] = [];

  beforeAll(async () => {
    expect(agentsInstalled(), "the agents are installed by tests/e2e/prepare.sh (npm run test:e2e)").toBe(true);
    const folder = await mkdtemp(path.join(tmpdir(), "agents-e2e-"));
    runDir = path.join(folder, "run");
    ({ start, proxyPort } = await startProxy(runDir, null));

    for (const agent of Object.keys(SCRIPTS) as AgentName[]) {
      // as a user without a key: the config written into the agent's own file in its home, nothing else set
      const home = agentHome(agent);
      const written = await execa(process.execPath, [...agentConfigArgs(agent, proxyPort), "--write"], { cwd: root, env: { ...NO_KEY_ENV, HOME: home }, extendEnv: false });
      writes[agent] = String(written.stdout);
      const config = await readFile(path.join(home, AGENT_CONFIG_FILES[agent]), "utf8");
      const session = createAgentSession(agent, config, {}, home, true);
      sessions[agent] = session;
      for (const prompt of SCRIPTS[agent](session.work)) await session.say(prompt);
      console.log(`── ${agent}: openclaw-rl agent-config ${agent} --write (no key set):\n${writes[agent]}\n── ~/${AGENT_CONFIG_FILES[agent]}:\n${session.config}\n── ${agent} session (no key set):\n${transcript(session)}`);
    }
    const status = await execa(process.execPath, ["bin/openclaw-rl.mjs", "status", "--run", runDir, "--json"], { cwd: root, reject: false });
    statusDuring = JSON.parse(String(status.stdout)) as Record<string, any>;
    console.log(`status --json during the run: turns ${JSON.stringify(statusDuring.turns)}, batches delivered ${statusDuring.batches_delivered}`);
    // Stopping closes each session's last turn: read the records after the run has ended.
    start.kill("SIGINT");
    const ended = await start;
    start = null;
    if (ended.exitCode !== 0) console.log(`openclaw-rl start exited ${ended.exitCode}:\n${String(ended.all).slice(-4000)}`);
    turns = await readJsonl(path.join(runDir, "turns.jsonl"));
    for (const turn of turns) {
      const last = JSON.stringify(turn.messages.at(-1)?.content ?? "").slice(0, 90);
      console.log(`turns.jsonl: session ${turn.session_id} turn ${turn.turn} (${turn.decided_by.session}, ${turn.decided_by.turnType}) last ${turn.messages.at(-1)?.role} ${last} → ${turn.response?.tool_calls ? `tool_calls ${JSON.stringify(turn.response.tool_calls.map((call: any) => call.function))}` : JSON.stringify(String(turn.response?.content ?? "").slice(0, 60))}; next_state ${turn.next_state ? `${turn.next_state.role} ${JSON.stringify(turn.next_state).slice(0, 80)}` : null}`);
    }
  }, 900_000);

  afterAll(() => stopProxy(start), 120_000);

  it.each(Object.keys(SCRIPTS) as AgentName[])("%s: agent-config --write created its config file, saying where its key comes from", (agent) => {
    const output = writes[agent]!;
    expect(output).toMatch(new RegExp(`^created \\S+/${AGENT_CONFIG_FILES[agent].replaceAll(".", "\\.")}\n`));
    expect(output).toContain("openclaw-rl-no-key");
    expect(sessions[agent]!.config).not.toContain("env_key");
  });

  it.each(Object.keys(SCRIPTS) as AgentName[])("%s answered every turn, offline, with no key set, and ran the tool the model called", (agent) => {
    const session = sessions[agent]!;
    for (const turn of session.turns) {
      const shown = `${agent} "${turn.prompt}": ${turn.stderrTail}\n${turn.stdout.slice(-1500)}`;
      if (SIDE_PROMPTS.includes(turn.prompt)) {
        // the stand-in writes no real summary: the agent may refuse it (Qwen Code exits 1), but it got an answer
        expect(turn.stdout, shown).toMatch(/"type":"result"/);
        continue;
      }
      expect(turn.exitCode, shown).toBe(0);
      expect(turn.text?.length ?? 0, shown).toBeGreaterThan(0);
    }
    const conversations = new Set(session.turns.map((turn) => turn.conversation));
    expect(conversations.size, `${agent} kept one conversation`).toBe(1);
    const ran = session.turns[0]!.tools;
    expect(ran.length, `${agent} ran a tool: ${session.turns[0]!.stdout.slice(-1500)}`).toBeGreaterThan(0);
    const shown = { codex: "notes.txt", "claude-code": "hello from the e2e notes", "qwen-code": "Found 1 matching file(s)" }[agent]; // (Qwen Code shows a summary)
    expect(ran.map((tool) => tool.output).join("\n")).toContain(shown);
  });

  it.each(Object.keys(SCRIPTS) as AgentName[])("%s: main turns captured in one session, the tool call closed by its result, the user's reply next", (agent) => {
    const session = sessions[agent]!;
    const script = SCRIPTS[agent](session.work);
    const mine = turns.filter((turn) => JSON.stringify(turn.messages).includes(JSON.stringify(script[0]!).slice(1, -1)));
    const ids = new Set(mine.map((turn) => turn.session_id));
    expect(ids.size, `${agent}: sessions ${[...ids].join(", ")}`).toBe(1);
    const ordered = [...mine].sort((a, b) => a.turn - b.turn);
    expect(ordered.map((turn) => turn.turn)).toEqual(ordered.map((_, index) => index));
    if (agent === "qwen-code") expect(ordered.slice(1).every((turn) => turn.decided_by.session === "history-prefix"), "Qwen Code names no conversation: its later turns extend the first").toBe(true);
    else {
      expect(ordered[0]!.session_id, `${agent}'s own conversation id is the session`).toBe(session.turns[0]!.conversation);
      expect(new Set(ordered.map((turn) => turn.decided_by.session))).toEqual(new Set(["client-conversation"]));
    }
    const toolTurn = ordered[0]!;
    expect(toolTurn.response.tool_calls?.length ?? 0, `${agent}'s first turn called a tool`).toBeGreaterThan(0);
    expect(toolTurn.next_state?.role, `${agent}: the tool call's next state`).toBe("tool");
    expect(JSON.stringify(toolTurn.next_state), "the tool's real output came back").toContain(agent === "claude-code" ? "hello from the e2e notes" : "notes.txt");
    const replied = ordered.find((turn) => turn.next_state?.role === "user");
    expect(JSON.stringify(replied?.next_state ?? null), `${agent}: the user's second message is a next state`).toContain(script[1]!.slice(0, 20));
    expect(ordered.at(-1)!.next_state).toBeNull();
  });

  it("side requests (Claude Code's /compact, Qwen Code's /compress) were recorded as side, never as main turns", () => {
    for (const turn of turns) {
      const last = JSON.stringify(turn.messages.at(-1)?.content ?? "");
      const system = JSON.stringify(turn.messages[0]?.content ?? "");
      for (const text of COMPACTION_TEXTS) expect(last.includes(text) || system.startsWith(`"${text}`), `a compaction was captured as main turn ${turn.session_id}:${turn.turn}`).toBe(false);
    }
    expect(statusDuring.turns.side, "the compactions (and Qwen Code's memory extraction) reached the proxy as side requests").toBeGreaterThanOrEqual(2);
    expect(statusDuring.turns.main, "every main turn the proxy served is in turns.jsonl").toBe(turns.length);
  });

  it("sampling: every client's main turns were drawn at the trainer's settings, whatever the client sent; a table per client", async () => {
    // the run's recipe: the trainer's distribution (the rollout temperature, no filter); status names each client's
    // main turns (User-Agent product) and the settings it asked for that the proxy did not use
    const recipe = parseYaml(await readFile(path.join(runDir, "recipe.resolved.yaml"), "utf8")) as { sampling: { temperature: number } };
    const temperature = recipe.sampling.temperature;
    const clients = (statusDuring.clients ?? []) as Array<{ client: string; main_turns: number; asked_otherwise: number; off_policy: number; asked: Record<string, number> }>;
    const rows: string[] = ["client (User-Agent) | main turns | asked for on main turns (values) | drawn with on main turns | off-policy"];
    for (const agent of Object.keys(SCRIPTS) as AgentName[]) {
      const script = SCRIPTS[agent](sessions[agent]!.work);
      const mine = turns.filter((turn) => JSON.stringify(turn.messages).includes(JSON.stringify(script[0]!).slice(1, -1)));
      expect(mine.length, `${agent}'s main turns`).toBeGreaterThan(0);
      for (const turn of mine) expect(turn.sampling, `${agent} ${turn.session_id}:${turn.turn}`).toMatchObject({ temperature, top_p: 1, top_k: -1, onPolicy: true });
      const asked = [...new Set(mine.map((turn) => JSON.stringify(turn.sampling.clientAsked)))].join(" ");
      const drawn = [...new Set(mine.map((turn) => `temperature ${turn.sampling.temperature}, top_p ${turn.sampling.top_p}, top_k ${turn.sampling.top_k}`))].join(" ");
      rows.push(`${agent} | ${mine.length} | ${asked} | ${drawn} | ${mine.filter((turn) => !turn.sampling.onPolicy).length}`);
    }
    rows.push("", "status --json clients during the run:", ...clients.map((entry) => `${entry.client}: ${entry.main_turns} main, ${entry.asked_otherwise} asked otherwise ${JSON.stringify(entry.asked)}, ${entry.off_policy} off-policy`));
    console.log(rows.join("\n"));
    // every main turn is counted under its client's name, none of them off-policy
    expect(clients.reduce((sum, entry) => sum + entry.main_turns, 0)).toBe(statusDuring.turns.main);
    expect(clients.every((entry) => entry.off_policy === 0)).toBe(true);
    expect(clients.map((entry) => entry.client)).toEqual(expect.arrayContaining(["codex_exec", "claude-cli", "QwenCode"]));
  });

  it("captured token-exactly: the response ids decode to the reply and Qwen3's end token; judged, side requests not", async () => {
    const tokenizer = new ModelTokenizer(await loadTokenizerFiles(BUILTIN_QWEN3));
    for (const turn of turns) {
      expect(turn.approximate).toBe(false);
      expect(turn.response_ids.length).toBe(turn.response_log_probs.length);
      const decoded = tokenizer.decode(turn.response_ids);
      expect(decoded.endsWith("<|im_end|>"), decoded.slice(-80)).toBe(true);
      for (const call of turn.response.tool_calls ?? []) expect(decoded).toContain(`"name": "${call.function.name}"`);
      if (typeof turn.response.content === "string" && turn.response.content !== "") expect(decoded).toContain(turn.response.content);
    }
    const judgements = await readJsonl(path.join(runDir, "judgements.jsonl"));
    const captured = new Set(turns.map((turn) => `${turn.session_id}:${turn.turn}`));
    expect(judgements.length).toBeGreaterThan(0);
    for (const line of judgements) expect(captured.has(`${line.sessionId}:${line.turn}`), `judged ${line.sessionId}:${line.turn} is a captured main turn`).toBe(true);
  });
});

describe("the printed configs against a proxy with a key", () => {
  let start: ReturnType<typeof execa> | null = null;
  const answers: Partial<Record<AgentName, { keyed: AgentSession; unkeyed: AgentSession | null }>> = {};
  /** Claude Code retries a 401 with backoff for minutes before it gives up: its refusal is not waited for. */
  const REFUSAL_SHOWN: AgentName[] = ["codex", "qwen-code"];

  beforeAll(async () => {
    expect(agentsInstalled(), "the agents are installed by tests/e2e/prepare.sh (npm run test:e2e)").toBe(true);
    const folder = await mkdtemp(path.join(tmpdir(), "agents-e2e-keyed-"));
    const proxy = await startProxy(path.join(folder, "run"), API_KEY);
    start = proxy.start;
    for (const agent of Object.keys(SCRIPTS) as AgentName[]) {
      const printed = String((await execa(process.execPath, agentConfigArgs(agent, proxy.proxyPort), { cwd: root, env: NO_KEY_ENV, extendEnv: false })).stdout);
      const keyed = createAgentSession(agent, printed, { OPENCLAW_RL_API_KEY: API_KEY });
      const unkeyed = REFUSAL_SHOWN.includes(agent) ? createAgentSession(agent, printed, {}) : null;
      await keyed.say(SAY_HI);
      await unkeyed?.say(SAY_HI);
      answers[agent] = { keyed, unkeyed };
      console.log(`── ${agent} with $OPENCLAW_RL_API_KEY set:\n${transcript(keyed)}${unkeyed ? `\n── ${agent} without it:\n${transcript(unkeyed)}` : ""}`);
    }
  }, 900_000);

  afterAll(() => stopProxy(start), 120_000);

  it.each(Object.keys(SCRIPTS) as AgentName[])("%s answers with $OPENCLAW_RL_API_KEY set", (agent) => {
    const turn = answers[agent]!.keyed.turns[0]!;
    expect(turn.exitCode, `${turn.stderrTail}\n${turn.stdout.slice(-1500)}`).toBe(0);
    expect(turn.text?.length ?? 0).toBeGreaterThan(0);
  });

  it.each(REFUSAL_SHOWN)("%s without it sends the placeholder, which the proxy refuses (401)", (agent) => {
    const refused = answers[agent]!.unkeyed!.turns[0]!;
    expect(refused.text, "no answer without the key").toBeNull();
    expect(`${refused.error ?? ""} ${refused.stdout} ${refused.stderrTail}`, "the proxy's 401").toMatch(/401[^\n]*invalid API key/);
  });
});
