// `openclaw-rl agent-config codex|claude-code|qwen-code` (through main() in this process): what each agent is told,
// and --write merging into its own config file without losing what is there.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCliInProcess } from "./cli-process.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "agent-config-"));
const RECIPE = ["--recipe", "configs/qwen3-4b-combine.yaml"];
/** Codex runs this for its key (not env_key, which refuses to start while the variable is unset). */
const CODEX_AUTH = `auth = { command = "sh", args = ["-c", "printf '%s' \\"\${OPENCLAW_RL_API_KEY:-openclaw-rl-no-key}\\""] }`;
/** Shell variables Qwen Code would take over its .env: unset for these tests (empty counts as unset, as for Qwen Code). */
const NO_SHELL_OPENAI = { OPENAI_BASE_URL: "", OPENAI_API_KEY: "", OPENAI_MODEL: "" };

describe("openclaw-rl agent-config", () => {
  it("prints Codex's model provider speaking the Responses API, its key from the proxy's variable or the no-key placeholder", async () => {
    const result = await runCliInProcess(["agent-config", "codex", ...RECIPE, "--host", "10.0.0.5"], { OPENCLAW_RL_API_KEY: "real-key" });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('model = "qwen3-4b"\nmodel_provider = "rl"\n');
    expect(result.stdout).toContain('[model_providers.rl]\nname = "openclaw-rl proxy"\nbase_url = "http://10.0.0.5:30000/v1"\nwire_api = "responses"\n' + CODEX_AUTH + "\n");
    // Codex 0.171 offers web_search (hosted) and a multi_agent_v1 namespace tool by default; the proxy refuses both
    // ([agents] enabled = false takes the namespace tool away without [features] multi_agent's deprecation warning)
    expect(result.stdout).toContain('web_search = "disabled"\n\n[agents]\nenabled = false\n');
    expect(result.stdout).not.toContain("real-key");
  });

  it("prints Claude Code's and Qwen Code's environment (Anthropic base URL without /v1, a utility model for side requests)", async () => {
    const claude = await runCliInProcess(["agent-config", "claude-code", ...RECIPE]);
    expect(claude.stdout.split("\n")).toEqual(
      expect.arrayContaining([
        "export ANTHROPIC_BASE_URL=http://127.0.0.1:30000",
        "export ANTHROPIC_MODEL=qwen3-4b",
        "export ANTHROPIC_SMALL_FAST_MODEL=qwen3-4b-utility",
        'export ANTHROPIC_AUTH_TOKEN="${OPENCLAW_RL_API_KEY:-openclaw-rl-no-key}"',
      ]),
    );
    const qwen = await runCliInProcess(["agent-config", "qwen-code", ...RECIPE, "--with-key"], { OPENCLAW_RL_API_KEY: "real-key" });
    expect(qwen.stdout).toBe("export OPENAI_BASE_URL=http://127.0.0.1:30000/v1\nexport OPENAI_API_KEY=real-key\nexport OPENAI_MODEL=qwen3-4b\n");
    const unknown = await runCliInProcess(["agent-config", "cursor"]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("codex, claude-code, qwen-code");
  });

  it("--write merges into Codex's config.toml: our model, provider and table replace theirs, every other line stays", async () => {
    const file = path.join(scratch, "config.toml");
    writeFileSync(
      file,
      '# my settings\nmodel = "gpt-5"\napproval_policy = "on-request"\n\n[model_providers.rl]\nbase_url = "http://old/v1"\n\n[features]\nmulti_agent = true\nshell_tool = true\n\n[agents]\nmax_threads = 2\nenabled = true\n\n[model_providers.other]\nbase_url = "http://x/v1"\n\n[profiles.fast]\nmodel = "o4-mini"\n',
      { mode: 0o640 },
    );
    const written = await runCliInProcess(["agent-config", "codex", ...RECIPE, "--write", file]);
    expect(written.exitCode).toBe(0);
    expect(written.stdout.split("\n")).toEqual(expect.arrayContaining(['  model: "gpt-5" → "qwen3-4b"', '  agents.enabled: true → false', '  model_providers.rl.base_url: "http://old/v1" → "http://127.0.0.1:30000/v1"']));
    const text = readFileSync(file, "utf8");
    expect(text).toBe(
      'model = "qwen3-4b"\nmodel_provider = "rl"\nweb_search = "disabled"\n# my settings\napproval_policy = "on-request"\n\n[features]\nmulti_agent = true\nshell_tool = true\n\n[agents]\nenabled = false\nmax_threads = 2\n\n[model_providers.other]\nbase_url = "http://x/v1"\n\n[profiles.fast]\nmodel = "o4-mini"\n\n[model_providers.rl]\nname = "openclaw-rl proxy"\nbase_url = "http://127.0.0.1:30000/v1"\nwire_api = "responses"\n' + CODEX_AUTH + "\n",
    );
    expect(written.stdout).toContain("  kept from the old file: approval_policy, features.multi_agent, features.shell_tool, agents.max_threads, model_providers.other.base_url, profiles.fast.model\n");
    expect(statSync(file).mode & 0o777).toBe(0o640);
    // merging again changes nothing
    await runCliInProcess(["agent-config", "codex", ...RECIPE, "--write", file]);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("--write merges Claude Code's settings.json env and Qwen Code's .env, keeping the rest; a broken file is left as it was", async () => {
    const settings = path.join(scratch, "settings.json");
    writeFileSync(settings, JSON.stringify({ permissions: { allow: ["Bash(ls)"] }, env: { MY_VAR: "1", ANTHROPIC_MODEL: "old", ANTHROPIC_AUTH_TOKEN: "sk-ant-old" } }));
    const written = await runCliInProcess(["agent-config", "claude-code", ...RECIPE, "--write", settings]);
    expect(written.stdout).toContain('Claude Code sends $OPENCLAW_RL_API_KEY as the proxy\'s key when it is set (apiKeyHelper), else "openclaw-rl-no-key"');
    const merged = JSON.parse(readFileSync(settings, "utf8"));
    expect(merged.permissions).toEqual({ allow: ["Bash(ls)"] });
    // the key from a command Claude Code runs; an old ANTHROPIC_AUTH_TOKEN would win over it, so it goes (its value not shown)
    expect(merged.apiKeyHelper).toBe(`printf '%s' "\${OPENCLAW_RL_API_KEY:-openclaw-rl-no-key}"`);
    expect(merged.env.ANTHROPIC_AUTH_TOKEN).toBeUndefined();
    expect(written.stdout).toContain("  env.ANTHROPIC_AUTH_TOKEN: (hidden, 10 characters) → (removed)\n");
    expect(written.stdout).toContain("  kept from the old file: permissions.allow, env.MY_VAR\n");
    expect(written.stdout).not.toContain("sk-ant-old");
    expect(merged.env).toMatchObject({ MY_VAR: "1", ANTHROPIC_MODEL: "qwen3-4b", ANTHROPIC_BASE_URL: "http://127.0.0.1:30000", ANTHROPIC_SMALL_FAST_MODEL: "qwen3-4b-utility" });
    const backup = readdirSync(scratch).find((name) => name.startsWith("settings.json.bak-"))!;
    expect(JSON.parse(readFileSync(path.join(scratch, backup), "utf8")).env.ANTHROPIC_MODEL).toBe("old");
    expect(written.stdout.split("\n")).toEqual(expect.arrayContaining([`wrote ${settings} (the previous file is kept as ${path.join(scratch, backup)})`, '  env.ANTHROPIC_MODEL: "old" → "qwen3-4b"', '  env.ANTHROPIC_BASE_URL: (none) → "http://127.0.0.1:30000"']));

    const dotenv = path.join(scratch, "qwen", ".env");
    await runCliInProcess(["agent-config", "qwen-code", ...RECIPE, "--write", dotenv], NO_SHELL_OPENAI);
    expect(statSync(dotenv).mode & 0o777).toBe(0o600);
    writeFileSync(dotenv, `# keep me\nOTHER=1\n${readFileSync(dotenv, "utf8")}`);
    const moved = await runCliInProcess(["agent-config", "qwen-code", ...RECIPE, "--write", dotenv, "--host", "10.0.0.5"], NO_SHELL_OPENAI);
    expect(moved.stdout.split("\n")[1]).toBe('  OPENAI_BASE_URL: "http://127.0.0.1:30000/v1" → "http://10.0.0.5:30000/v1"');
    expect(moved.stdout).not.toContain("OPENAI_MODEL:"); // (unchanged keys are not listed as changes)
    expect(moved.stdout).toContain("  kept from the old file: OTHER, OPENAI_MODEL, OPENAI_API_KEY\n");
    expect(moved.stdout).not.toContain("note: this shell sets");
    expect(readFileSync(dotenv, "utf8")).toBe('# keep me\nOTHER=1\nOPENAI_BASE_URL="http://10.0.0.5:30000/v1"\nOPENAI_MODEL="qwen3-4b"\nOPENAI_API_KEY="openclaw-rl-no-key"\n');

    const broken = path.join(scratch, "broken.json");
    writeFileSync(broken, "{ not json");
    const refused = await runCliInProcess(["agent-config", "claude-code", ...RECIPE, "--write", broken]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("is not valid JSON");
    expect(readFileSync(broken, "utf8")).toBe("{ not json");
  });

  it("Qwen Code's .env: an old OPENAI_API_KEY is replaced by the no-key placeholder and said (its value hidden); the key, with --with-key; shell variables that win are named", async () => {
    const dotenv = path.join(scratch, "qwen-old", ".env");
    mkdirSync(path.dirname(dotenv), { recursive: true });
    writeFileSync(dotenv, "OPENAI_API_KEY=sk-my-openai-key\nOPENAI_BASE_URL=https://api.openai.com/v1\nTAVILY_API_KEY=tv-1\n");
    const written = await runCliInProcess(["agent-config", "qwen-code", ...RECIPE, "--write", dotenv], { ...NO_SHELL_OPENAI, OPENAI_API_KEY: "sk-shell" });
    expect(written.exitCode).toBe(0);
    expect(written.stdout.split("\n")).toEqual(
      expect.arrayContaining([
        '  OPENAI_API_KEY: (hidden, 16 characters) → "openclaw-rl-no-key"',
        '  OPENAI_BASE_URL: https://api.openai.com/v1 → "http://127.0.0.1:30000/v1"',
        "  kept from the old file: TAVILY_API_KEY",
        'Qwen Code sends "openclaw-rl-no-key" as the proxy\'s key (a proxy started without a key takes any); for a proxy started with $OPENCLAW_RL_API_KEY set, start Qwen Code with OPENAI_API_KEY="$OPENCLAW_RL_API_KEY" or write the key with --with-key',
        "note: this shell sets OPENAI_API_KEY, which qwen-code takes instead of the file's (unset it before starting it)",
      ]),
    );
    expect(written.stdout).not.toContain("sk-my-openai-key");
    expect(readFileSync(dotenv, "utf8")).toBe('TAVILY_API_KEY=tv-1\nOPENAI_BASE_URL="http://127.0.0.1:30000/v1"\nOPENAI_MODEL="qwen3-4b"\nOPENAI_API_KEY="openclaw-rl-no-key"\n');
    const keyed = await runCliInProcess(["agent-config", "qwen-code", ...RECIPE, "--write", dotenv, "--with-key"], { ...NO_SHELL_OPENAI, OPENCLAW_RL_API_KEY: "proxy-key" });
    expect(keyed.stdout).toContain('  OPENAI_API_KEY: "openclaw-rl-no-key" → (hidden, 9 characters)');
    expect(keyed.stdout).not.toContain("Qwen Code sends");
    expect(readFileSync(dotenv, "utf8")).toContain('OPENAI_API_KEY="proxy-key"\n');
  });

  it("a key variable that is no shell name is refused by name (an agent could not read it)", async () => {
    const result = await runCliInProcess(["agent-config", "codex", ...RECIPE, "--set", "proxy.api_key_env=my-key"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('proxy.api_key_env "my-key" is not a shell variable name');
  });
});
