// `openclaw-rl doctor` on fake installations (tests/support/engine-install.ts, shaped after the real fork, upstream
// slime and two SGLang commits) probed for real by engine_probe.py in a venv of /usr/bin/python3: what it reports,
// which streaming form the plan's flag gives, and the fix for each way a recipe can disagree with the installation.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ENGINE_FACTS, buildInstallation, type FakeInstallation } from "../support/engine-install.ts";
import { runCli, runCliInProcess } from "./cli-process.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "doctor-installation-"));

interface Line {
  id: string;
  status: string;
  what: string;
  fix?: string;
  path?: string;
  code?: string;
}

function recipeFlags(installation: FakeInstallation, sets: string[] = []): string[] {
  const keys = { "engine.slime.root": installation.root, "engine.slime.megatron_root": installation.megatronRoot, "engine.slime.python": installation.python };
  return [...Object.entries(keys).flatMap(([key, value]) => ["--set", `${key}=${value}`]), ...sets.flatMap((set) => ["--set", set])];
}

/** doctor's installation results (ids slime, sglang, stream), through --json. */
async function doctor(installation: FakeInstallation, sets: string[] = [], recipe = "configs/qwen3-4b-binary.yaml"): Promise<Line[]> {
  const result = await runCliInProcess(["doctor", "--json", "--recipe", recipe, ...recipeFlags(installation, sets)]);
  expect(result.stderr).toBe("");
  const report = JSON.parse(result.stdout) as { results: Line[] };
  return report.results.filter((line) => ["slime", "sglang", "stream"].includes(line.id));
}

const failures = (lines: Line[]) => lines.filter((line) => line.status === "fail").map(({ what, fix }) => ({ what, fix }));

describe("openclaw-rl doctor: the installed slime and SGLang", () => {
  let fork: FakeInstallation;
  let upstream: FakeInstallation;
  let mixed: FakeInstallation;
  let renamedOnly: FakeInstallation;
  let nothing: FakeInstallation;
  let upstreamOnOldSglang: FakeInstallation;
  beforeAll(async () => {
    [fork, upstream, mixed, renamedOnly, nothing, upstreamOnOldSglang] = await Promise.all([
      buildInstallation(path.join(scratch, "fork"), "fork", "jan"),
      buildInstallation(path.join(scratch, "upstream"), "upstream", "aug"),
      buildInstallation(path.join(scratch, "mixed"), "fork", "aug"),
      buildInstallation(path.join(scratch, "renamed-only"), "upstream", "v0.5.10"),
      buildInstallation(path.join(scratch, "nothing"), "none", "none"),
      buildInstallation(path.join(scratch, "upstream-old-sglang"), "upstream", "jan"),
    ]);
  });

  it("fork slime + SGLang dce8b060: flavour, commit, markers, FSDP; SGLang's fields, options and parsers; legacy streaming", async () => {
    const lines = await doctor(fork);
    expect(lines.every((line) => line.status === "pass")).toBe(true);
    expect(lines.map((line) => line.what)).toEqual([
      `OpenClaw-RL fork slime at ${fork.root}, commit ${fork.commit!.slice(0, 12)}: --prm-enable, --distill-topk, advantage estimator on_policy_distillation, --train-backend megatron|fsdp; FSDP backend present`,
      "engine.slime.flavor fork matches the installed slime",
      expect.stringMatching(
        new RegExp(`^SGLang 0\\.5\\.6\\.post3\\.dev902\\+gdce8b0606 at ${scratch}/fork/env/lib/python3\\.\\d+/site-packages/sglang: ServerArgs has stream_output; options --stream-output \\(sets stream_output\\); streamed log-probs never sliced; tool-call parsers ${ENGINE_FACTS.sglang.jan.tool_call_parsers.join(", ")}$`),
      ),
      "engine.slime.stream_output_flag --sglang-stream-output gives legacy streaming on SGLang 0.5.6.post3.dev902+gdce8b0606: output ids arrive as deltas while log-probs stay cumulative (SGLang before v0.5.11 slices no log-probs)",
    ]);
  });

  it("upstream slime + SGLang 4ad990ba: no FSDP; --stream-output is a deprecated alias of incremental_streaming_output, which slices log-probs", async () => {
    const lines = await doctor(upstream, ["engine.slime.flavor=upstream", "judge.launch=standalone"]);
    expect(lines.every((line) => line.status === "pass")).toBe(true);
    expect(lines[0]!.what).toBe(`upstream slime at ${upstream.root}, commit ${upstream.commit!.slice(0, 12)}: --use-opd, --opd-type, --opd-kl-coef, --train-backend megatron; no FSDP backend`);
    expect(lines[2]!.what).toMatch(/^SGLang 0\.5\.15\.post1 at .*: ServerArgs has incremental_streaming_output; options --stream-output \(sets incremental_streaming_output\), --incremental-streaming-output \(sets incremental_streaming_output\); streamed log-probs sliced; tool-call parsers apertus2509, /);
    expect(lines[3]!.what).toBe("engine.slime.stream_output_flag --sglang-incremental-streaming-output gives incremental streaming on SGLang 0.5.15.post1: output ids, text and log-probs arrive as deltas");
    const alias = await doctor(upstream, ["engine.slime.flavor=upstream", "judge.launch=standalone", "engine.slime.stream_output_flag=--sglang-stream-output"]);
    expect(alias.find((line) => line.id === "stream")!.what).toBe("engine.slime.stream_output_flag --sglang-stream-output gives incremental streaming on SGLang 0.5.15.post1: output ids, text and log-probs arrive as deltas");
    const none = await doctor(upstream, ["engine.slime.flavor=upstream", "judge.launch=standalone", "engine.slime.stream_output_flag=none"]);
    expect(none.find((line) => line.id === "stream")!.what).toBe("engine.slime.stream_output_flag none gives cumulative streaming on SGLang 0.5.15.post1: every chunk repeats the whole answer so far (output ids, text and log-probs cumulative)");
  });

  it("SGLang v0.5.10: the field is renamed but log-probs are not sliced yet, so either flag gives the legacy form", async () => {
    for (const flag of ["--sglang-stream-output", "--sglang-incremental-streaming-output"]) {
      const lines = await doctor(renamedOnly, ["engine.slime.flavor=upstream", "judge.launch=standalone", `engine.slime.stream_output_flag=${flag}`]);
      expect(lines.every((line) => line.status === "pass"), flag).toBe(true);
      expect(lines.find((line) => line.id === "sglang")!.what).toContain("ServerArgs has incremental_streaming_output; options --stream-output (sets incremental_streaming_output), --incremental-streaming-output (sets incremental_streaming_output); streamed log-probs never sliced");
      expect(lines.find((line) => line.id === "stream")!.what).toBe(`engine.slime.stream_output_flag ${flag} gives legacy streaming on SGLang 0.5.10: output ids arrive as deltas while log-probs stay cumulative (SGLang before v0.5.11 slices no log-probs)`);
    }
  });

  it("nothing installed: says so plainly, one line each, no stack trace (a real process)", async () => {
    const result = await runCli(["doctor", "--recipe", "configs/qwen3-4b-binary.yaml", ...recipeFlags(nothing)]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe("");
    expect(result.stdout).not.toMatch(/Traceback|at .*\.ts:\d+/);
    const lines = result.stdout.split("\n").filter((line) => /^\s+\S+\s+(slime|sglang|stream)\s/.test(line));
    expect(lines.map((line) => line.trim().replace(/\s+/g, " "))).toEqual([
      `fail slime slime is not installed at ${nothing.root} (engine.slime.root: ${nothing.root} does not exist), and ${nothing.python} cannot import slime (ModuleNotFoundError: No module named 'slime')`,
      `fail sglang engine.slime.python: SGLang is not importable by ${nothing.python} (ModuleNotFoundError: No module named 'sglang')`,
    ]);
    expect(result.stdout).toContain("fix: clone slime (the fork: the slime/ folder of Gen-Verse/OpenClaw-RL; upstream: THUDM/slime) and set engine.slime.root to it");
  });

  it("a missing interpreter is one line with the fix", async () => {
    const lines = await doctor({ ...fork, python: path.join(scratch, "no-such-python") });
    expect(failures(lines)).toEqual([
      { what: `cannot look at the installed slime and SGLang: engine.slime.python (${path.join(scratch, "no-such-python")}) was not found`, fix: "set engine.slime.python to the interpreter of your slime environment (the one with torch, ray and sglang)" },
    ]);
  });

  it("flavor fork on upstream slime: refused with `set engine.slime.flavor: upstream`, and judge.launch slime needs the fork", async () => {
    expect(failures(await doctor(upstream))).toEqual([
      { what: `engine.slime.flavor is fork, but the slime at ${upstream.root} is upstream slime (it has --use-opd and no --prm-enable)`, fix: "set engine.slime.flavor: upstream" },
      { what: `judge.launch is slime, but the slime at ${upstream.root} has no --prm-enable (only the OpenClaw-RL fork hosts the judge)`, fix: "use judge.launch: standalone (a separate SGLang server on the PRM GPUs), or the slime fork from Gen-Verse/OpenClaw-RL" },
    ]);
    expect(failures(await doctor(fork, ["engine.slime.flavor=upstream", "judge.launch=standalone"]))).toEqual([
      { what: `engine.slime.flavor is upstream, but the slime at ${fork.root} is the OpenClaw-RL fork (it has --prm-enable and no --use-opd)`, fix: "set engine.slime.flavor: fork" },
      {
        what: "engine.slime.stream_output_flag is --sglang-incremental-streaming-output, but SGLang 0.5.6.post3.dev902+gdce8b0606 has no --incremental-streaming-output, so slime has no --sglang-incremental-streaming-output and refuses to start",
        fix: 'set engine.slime.stream_output_flag: "--sglang-stream-output" (legacy streaming), or none (cumulative chunks)',
      },
    ]);
  });

  it("a stream flag the installed SGLang lacks: refused with the flag it has and the form that gives", async () => {
    const forkWithNewFlag = await runCliInProcess(["doctor", "--json", "--recipe", "configs/qwen3-4b-binary.yaml", ...recipeFlags(fork, ["engine.slime.stream_output_flag=--sglang-incremental-streaming-output"])]);
    expect(forkWithNewFlag.stderr).toMatch(/^error: engine\.slime\.stream_output_flag: engine\.slime\.flavor fork: the fork's SGLang \(dce8b060\) has no --sglang-incremental-streaming-output/);
    expect(failures(await doctor(upstreamOnOldSglang, ["engine.slime.flavor=upstream", "judge.launch=standalone"]))).toEqual([
      {
        what: "engine.slime.stream_output_flag is --sglang-incremental-streaming-output, but SGLang 0.5.6.post3.dev902+gdce8b0606 has no --incremental-streaming-output, so slime has no --sglang-incremental-streaming-output and refuses to start",
        fix: 'set engine.slime.stream_output_flag: "--sglang-stream-output" (legacy streaming), or none (cumulative chunks)',
      },
    ]);
  });

  it("LoRA (the fsdp backend) on upstream slime: refused, naming the missing backend", async () => {
    const lora = await runCliInProcess(["doctor", "--json", "--recipe", "configs/qwen3-4b-binary-lora.yaml", ...recipeFlags(upstream, ["engine.slime.flavor=upstream", "judge.launch=standalone"])]);
    expect(lora.stderr).toMatch(/^error: training\.lora: engine\.slime\.flavor upstream has no LoRA/);
    expect(failures(await doctor(upstream, ["judge.launch=standalone"], "configs/qwen3-4b-binary-lora.yaml"))).toEqual([
      { what: `engine.slime.flavor is fork, but the slime at ${upstream.root} is upstream slime (it has --use-opd and no --prm-enable)`, fix: "set engine.slime.flavor: upstream" },
      {
        what: `training.backend is fsdp (LoRA), but the slime at ${upstream.root} has no FSDP backend (slime/backends/fsdp_utils missing; --train-backend accepts megatron)`,
        fix: "use the OpenClaw-RL fork's slime (engine.slime.flavor: fork), or train full weights: training.backend: megatron without training.lora",
      },
    ]);
  });

  it("engine.slime.root at the OpenClaw-RL checkout around the fork's slime: the fix names the folder meant", async () => {
    const lines = await doctor({ ...fork, root: fork.repository! });
    expect(failures(lines)).toEqual([
      { what: `engine.slime.root (${fork.repository}): \`import slime\` finds ${fork.root}, a folder without __init__.py, not the slime package`, fix: `set engine.slime.root: ${fork.root}` },
    ]);
  });

  it("the fork's slime on a newer SGLang: a warning about the pairing, and the form that SGLang gives", async () => {
    const lines = await doctor(mixed);
    expect(failures(lines)).toEqual([]);
    expect(lines.filter((line) => line.status === "warn")).toEqual([
      {
        id: "sglang",
        status: "warn",
        what: "the fork's slime was built for SGLang dce8b060 (ServerArgs.stream_output); SGLang 0.5.15.post1 is newer (incremental_streaming_output)",
        fix: "use the SGLang of the fork's image (slimerl/sglang:nightly-dev-20260107-dce8b060), or check slime's SGLang calls by hand",
        path: "engine.slime.python",
      },
    ]);
    expect(lines.find((line) => line.id === "stream")!.what).toMatch(/gives incremental streaming on SGLang 0\.5\.15\.post1/);
  });
});
