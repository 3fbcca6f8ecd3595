// `openclaw-rl start` refusing before it starts or writes anything (a real process: start's action exits the
// process): one line per problem naming the recipe key or flag, exit 2, no stack trace, no run folder.
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { createRunFolder } from "../../cli/commands/run-folder.ts";
import { buildInstallation, type FakeInstallation } from "../support/engine-install.ts";
import { freePort } from "../support/loopback.ts";
import { MODEL_ARGS_FIXTURE } from "../golden/golden-plan.ts";
import { runCli } from "./cli-process.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "start-refusals-"));

/** --set arguments that move every port the rehearsal recipe binds to free ones. */
async function freePorts(): Promise<string[]> {
  const keys = ["proxy.port", "proxy.admin_port", "engine.rehearsal.policy_port", "engine.rehearsal.judge_port"];
  const ports = await Promise.all(keys.map(() => freePort()));
  return keys.flatMap((key, index) => ["--set", `${key}=${ports[index]}`]);
}

/** --set arguments for the binary slime recipe on a fake installation: free ports, no Ray to find, its model args. */
async function slimeOn(installation: FakeInstallation, runDir: string): Promise<string[]> {
  const keys = ["proxy.port", "proxy.admin_port", "cluster.ray_port", "cluster.dashboard_port"];
  const ports = await Promise.all(keys.map(() => freePort()));
  const sets = [
    ...keys.map((key, index) => `${key}=${ports[index]}`),
    `engine.slime.root=${installation.root}`,
    `engine.slime.megatron_root=${installation.megatronRoot}`,
    `engine.slime.python=${installation.python}`,
    `engine.slime.ray=${path.join(scratch, "no-ray-here")}`,
    `engine.slime.model_args=${MODEL_ARGS_FIXTURE}`,
    `records.dir=${runDir}`,
  ];
  return ["--recipe", "configs/qwen3-4b-binary.yaml", ...sets.flatMap((set) => ["--set", set])];
}

function errorLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.trim() !== "");
}

describe("openclaw-rl start refuses before writing anything", () => {
  it("records.dir that cannot be created: one line naming records.dir and the OS reason, exit 2", async () => {
    const file = path.join(scratch, "a-file");
    writeFileSync(file, "");
    const result = await runCli(["start", ...(await freePorts()), "--set", `records.dir=${file}/sub`]);
    expect(result.exitCode).toBe(2);
    expect(errorLines(result.stderr)).toEqual([`error: records.dir: cannot create ${file}/sub: ${file} is a file, not a folder (ENOTDIR) (hint: point records.dir at a folder you can create and write (--set records.dir=<folder>))`]);
    expect(result.stdout).toBe("");
  });

  it("--ready-timeout that is not a positive number of seconds: one line naming the flag, exit 2, nothing written", async () => {
    const runDir = path.join(scratch, "ready-timeout-run");
    const ports = await freePorts();
    for (const value of ["abc", "0", "-5", "Infinity", ""]) {
      const result = await runCli(["start", ...ports, "--set", `records.dir=${runDir}`, "--ready-timeout", value]);
      expect(result.exitCode, value).toBe(2);
      expect(errorLines(result.stderr), value).toEqual([`error: --ready-timeout: expected a positive number of seconds (at most 2147483), got "${value}" (hint: e.g. --ready-timeout 900 (the default is 600))`]);
    }
    expect(existsSync(runDir)).toBe(false);
  });

  it("proxy.host 0.0.0.0 without an API key: refused before the run folder is written", async () => {
    const runDir = path.join(scratch, "bind-run");
    const result = await runCli(["start", ...(await freePorts()), "--set", "proxy.host=0.0.0.0", "--set", `records.dir=${runDir}`], { env: { OPENCLAW_RL_API_KEY: "" } });
    expect(result.exitCode).toBe(2);
    expect(errorLines(result.stderr)).toEqual(['error: proxy.host: refusing to serve the proxy on 0.0.0.0 without an API key (hint: set the OPENCLAW_RL_API_KEY environment variable (clients send it as "Authorization: Bearer <key>"), or bind 127.0.0.1)']);
    expect(existsSync(runDir)).toBe(false);
  });

  it("the run folder itself: an OS refusal is a typed error naming records.dir (no stack trace)", () => {
    const file = path.join(scratch, "another-file");
    writeFileSync(file, "");
    const recipe = recipeSchema.parse({});
    let thrown: unknown;
    try {
      createRunFolder(path.join(file, "sub"), recipe);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(OpenclawRlError);
    expect((thrown as OpenclawRlError).toLine()).toMatch(new RegExp(`^records\\.dir: cannot create the run folder ${file}/sub: not a directory \\(ENOTDIR\\) \\(hint: `));
    expect(existsSync(path.join(file, "sub"))).toBe(false);
  });

  it("engine slime on an upstream slime with flavor fork: refused with the fix before anything starts (the real probe)", async () => {
    const upstream = await buildInstallation(path.join(scratch, "upstream"), "upstream", "aug");
    const runDir = path.join(scratch, "upstream-run");
    const result = await runCli(["start", ...(await slimeOn(upstream, runDir))], { env: { OPENCLAW_RL_API_KEY: "" } });
    expect(result.exitCode).toBe(2);
    expect(errorLines(result.stderr)).toEqual([
      `error: engine.slime.flavor: engine.slime.flavor is fork, but the slime at ${upstream.root} is upstream slime (it has --use-opd and no --prm-enable) (hint: set engine.slime.flavor: upstream)`,
      `error: judge.launch: judge.launch is slime, but the slime at ${upstream.root} has no --prm-enable (only the OpenClaw-RL fork hosts the judge) (hint: use judge.launch: standalone (a separate SGLang server on the PRM GPUs), or the slime fork from Gen-Verse/OpenClaw-RL)`,
    ]);
    expect(result.stdout).toBe("");
    expect(existsSync(runDir)).toBe(false);
  });

  it("engine slime with nothing installed: one line for slime, one for SGLang, no stack trace", async () => {
    const nothing = await buildInstallation(path.join(scratch, "nothing"), "none", "none");
    const runDir = path.join(scratch, "nothing-run");
    const result = await runCli(["start", ...(await slimeOn(nothing, runDir))], { env: { OPENCLAW_RL_API_KEY: "" } });
    expect(result.exitCode).toBe(2);
    expect(errorLines(result.stderr)).toEqual([
      `error: engine.slime.root: slime is not installed at ${nothing.root} (engine.slime.root: ${nothing.root} does not exist), and ${nothing.python} cannot import slime (ModuleNotFoundError: No module named 'slime') (hint: clone slime (the fork: the slime/ folder of Gen-Verse/OpenClaw-RL; upstream: THUDM/slime) and set engine.slime.root to it)`,
      `error: engine.slime.python: SGLang is not importable by ${nothing.python} (ModuleNotFoundError: No module named 'sglang') (hint: install SGLang into the environment of engine.slime.python (the fork's image pins nightly-dev-20260107-dce8b060, upstream slime v0.5.15.post1), or set engine.slime.python to that environment's interpreter)`,
    ]);
    expect(existsSync(runDir)).toBe(false);
  });
});
