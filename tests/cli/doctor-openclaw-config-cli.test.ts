// `openclaw-rl doctor` on the rehearsal recipe (a real process) and on a slime recipe, and
// `openclaw-rl openclaw-config` (through main() in this process).
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "../support/loopback.ts";
import { runCli, runCliInProcess } from "./cli-process.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "cli-"));


describe("openclaw-rl doctor (process)", () => {
  it("passes on the rehearsal recipe with only the checks that apply", async () => {
    const ports = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const sets = ["proxy.port", "proxy.admin_port", "engine.rehearsal.policy_port", "engine.rehearsal.judge_port"].flatMap((key, index) => ["--set", `${key}=${ports[index]}`]);
    const result = await runCli(["doctor", "--recipe", "configs/rehearsal.yaml", ...sets]);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/pass\s+tokenizer\s+model\.tokenizer_path \(builtin:qwen3\)/);
    expect(result.stdout).toMatch(/pass\s+disk/);
    expect(result.stdout).toContain("GPU, placement, Python, Ray and slime checks do not apply");
    expect(result.stdout).toContain("result: every required check passed");
  });

  it("fails (exit 1) with a fix per failure when the slime recipe's machine is not there", async () => {
    const result = await runCliInProcess(["doctor", "--json", "--recipe", "configs/qwen3-4b-binary.yaml", "--set", "engine.slime.root=/nonexistent/slime", "--set", "engine.slime.python=/nonexistent/python3", "--set", "model.path=/nonexistent/model"]);
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(result.stdout) as { ok: boolean; results: { id: string; status: string; fix?: string }[] };
    expect(report.ok).toBe(false);
    const failed = report.results.filter((item) => item.status === "fail");
    expect(failed.map((item) => item.id)).toEqual(expect.arrayContaining(["python", "slime", "tokenizer", "checkpoint"]));
    expect(failed.every((item) => typeof item.fix === "string" && item.fix.length > 0)).toBe(true);
  });
});

describe("openclaw-rl openclaw-config (process)", () => {
  it("prints the provider entry with a ${VAR} key placeholder by default", async () => {
    const result = await runCliInProcess(["openclaw-config", "--recipe", "configs/qwen3-4b-combine.yaml", "--host", "10.0.0.5"], { OPENCLAW_RL_API_KEY: "real-key" });
    expect(result.exitCode).toBe(0);
    const entry = JSON.parse(result.stdout);
    expect(entry.models).toMatchObject({ mode: "replace", catalogRefresh: { enabled: false } });
    expect(entry.models.providers.rl).toMatchObject({ baseUrl: "http://10.0.0.5:30000/v1", apiKey: "${OPENCLAW_RL_API_KEY}", api: "openai-completions" });
    expect(entry.models.providers.rl.models[0]).toMatchObject({ id: "qwen3-4b", contextWindow: 32768, maxTokens: 8192, compat: { sendSessionAffinityHeaders: true } });
    expect(entry.agents.defaults.model.primary).toBe("rl/qwen3-4b");
    expect(result.stdout).not.toContain("real-key");
  });

  it("--with-key puts the real key in; unset → exit 2", async () => {
    const withKey = await runCliInProcess(["openclaw-config", "--with-key", "--set", "proxy.api_key_env=MY_PROXY_KEY"], { MY_PROXY_KEY: "real-key" });
    expect(JSON.parse(withKey.stdout).models.providers.rl.apiKey).toBe("real-key");
    const unset = await runCliInProcess(["openclaw-config", "--with-key", "--set", "proxy.api_key_env=UNSET_KEY_FOR_TEST"]);
    expect(unset.exitCode).toBe(2);
    expect(unset.stderr).toContain("$UNSET_KEY_FOR_TEST is not set");
  });

  it("--write merges into an existing openclaw.json and keeps its other content and mode; creates 0600", async () => {
    const existing = path.join(scratch, "openclaw.json");
    writeFileSync(existing, JSON.stringify({ gateway: { mode: "local" }, models: { providers: { other: { baseUrl: "http://x/v1" } } }, agents: { defaults: { workspace: "/w" } } }), { mode: 0o640 });
    expect((await runCliInProcess(["openclaw-config", "--write", existing])).exitCode).toBe(0);
    const merged = JSON.parse(readFileSync(existing, "utf8"));
    expect(merged.gateway).toEqual({ mode: "local" });
    expect(Object.keys(merged.models.providers).sort()).toEqual(["other", "rl"]);
    expect(merged.agents.defaults).toEqual({ workspace: "/w", model: { primary: "rl/qwen3-4b" } });
    expect(statSync(existing).mode & 0o777).toBe(0o640);

    const created = path.join(scratch, "fresh", "openclaw.json");
    expect((await runCliInProcess(["openclaw-config", "--write", created])).exitCode).toBe(0);
    expect(statSync(created).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(created, "utf8")).models.providers.rl.baseUrl).toBe("http://127.0.0.1:30000/v1");
  });

  it("--write refuses a file that is not JSON5, saying where, and leaves it untouched", async () => {
    const broken = path.join(scratch, "broken.json");
    writeFileSync(broken, "{ not json");
    const result = await runCliInProcess(["openclaw-config", "--write", broken]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`${broken} is not valid JSON5 (expected ":" after the key "not" at line 1, column 7); nothing was written`);
    expect(readFileSync(broken, "utf8")).toBe("{ not json");
    expect(readdirSync(scratch).filter((name) => name.startsWith("broken.json.bak-"))).toEqual([]);
  });

  it("--write reads a JSON5 openclaw.json (comments, trailing commas, unquoted keys) as OpenClaw does, keeps the old file beside it and prints each change", async () => {
    const folder = mkdtempSync(path.join(scratch, "json5-"));
    const file = path.join(folder, "openclaw.json");
    const original = `// my OpenClaw config
{
  gateway: { mode: 'local', },  /* the local gateway */
  agents: { defaults: { model: { primary: "anthropic/claude-opus-4", fallbacks: ["openai/gpt-5"] }, workspace: "/w" } },
}
`;
    writeFileSync(file, original, { mode: 0o640 });
    const result = await runCliInProcess(["openclaw-config", "--write", file]);
    expect(result.exitCode).toBe(0);
    const backups = readdirSync(folder).filter((name) => name.startsWith("openclaw.json.bak-"));
    expect(backups).toEqual([expect.stringMatching(/^openclaw\.json\.bak-\d{8}-\d{6}$/)]);
    expect(readFileSync(path.join(folder, backups[0]!), "utf8")).toBe(original);
    const merged = JSON.parse(readFileSync(file, "utf8"));
    expect(merged.gateway).toEqual({ mode: "local" });
    expect(merged.agents.defaults).toEqual({ workspace: "/w", model: { primary: "rl/qwen3-4b", fallbacks: ["openai/gpt-5"] } });
    expect(statSync(file).mode & 0o777).toBe(0o640);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe(`wrote ${file} (the previous file is kept as ${path.join(folder, backups[0]!)}); it is written as plain JSON now: its comments and JSON5 formatting are in the backup only`);
    expect(lines).toContain('  agents.defaults.model.primary: "anthropic/claude-opus-4" → "rl/qwen3-4b"');
    expect(lines).toContain('  models.providers.rl.baseUrl: (none) → "http://127.0.0.1:30000/v1"');
    // the untouched keys are not changes: they are named once, as kept
    expect(lines.filter((line) => line.includes("gateway") || line.includes("fallbacks") || line.includes("workspace"))).toEqual(["  kept from the old file: gateway.mode, agents.defaults.model.fallbacks, agents.defaults.workspace"]);

    const again = await runCliInProcess(["openclaw-config", "--write", file]);
    expect(again.stdout).toBe(`${file} already holds these settings; nothing was written\n`);
    expect(readdirSync(folder).filter((name) => name.startsWith("openclaw.json.bak-"))).toHaveLength(1);
  });
});
