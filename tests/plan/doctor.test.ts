// doctor's checks against fixture folders and fixture executables: ports in use, tokenizer files, the slime fork,
// nvidia-smi present / absent / too few GPUs, the Python import report; and which checks apply per engine.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/loopback.ts";
import { parseRecipe } from "../../cli/recipe-file.ts";
import { checkCheckpoints } from "../../launchers/doctor/checkpoint-check.ts";
import { runDoctor } from "../../launchers/doctor/doctor.ts";
import { checkGpus } from "../../launchers/doctor/gpu-check.ts";
import { checkPorts } from "../../launchers/doctor/port-check.ts";
import { checkPythonImports } from "../../launchers/doctor/python-check.ts";
import { checkSglangStreamFlag } from "../../launchers/doctor/sglang-stream-check.ts";
import { checkSlime, slimeHasPrmFlags } from "../../launchers/doctor/slime-check.ts";
import { MODEL_ARGS_FIXTURE } from "../golden/golden-plan.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "doctor-"));
const identity = (source: string) => source;

function executable(name: string, script: string): string {
  const folder = mkdtempSync(path.join(scratch, "bin-"));
  const file = path.join(folder, name);
  writeFileSync(file, `#!/bin/sh\n${script}\n`);
  chmodSync(file, 0o755);
  return folder;
}

/** A port the kernel just handed out and we released (the schema does not take 0). */

function checkpoint(files: Record<string, string>): string {
  const folder = mkdtempSync(path.join(scratch, "ckpt-"));
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(folder, name), content);
  return folder;
}

describe("doctor checks", () => {
  let busy: Server;
  let busyPort = 0;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it("ports: one in use fails naming its key; two roles on one port fail", async () => {
    const inUse = await checkPorts(parseRecipe({ engine: { kind: "rehearsal" }, proxy: { port: busyPort } }));
    expect(inUse.find((result) => result.detail.includes("proxy.port"))).toMatchObject({ status: "fail", detail: `${busyPort} (proxy.port) is in use` });
    const twins = await checkPorts(parseRecipe({ proxy: { port: 30555, admin_port: 30555 } }));
    expect(twins.filter((result) => result.status === "fail").map((result) => result.detail)).toContain("proxy.port and proxy.admin_port are both 30555");
  });

  it("tokenizer: needs tokenizer.json and a chat_template; weights need config.json", async () => {
    const good = checkpoint({ "tokenizer.json": "{}", "tokenizer_config.json": JSON.stringify({ chat_template: "{{ x }}" }), "config.json": "{}" });
    const noTemplate = checkpoint({ "tokenizer.json": "{}", "tokenizer_config.json": "{}" });
    const slime = (modelPath: string) => parseRecipe({ model: { path: modelPath } });
    expect((await checkCheckpoints(slime(good), identity)).map((result) => result.status)).toEqual(["ok", "ok"]);
    const bad = await checkCheckpoints(slime(noTemplate), identity);
    expect(bad.map((result) => [result.topic, result.status])).toEqual([["tokenizer", "fail"], ["checkpoint", "fail"]]);
    expect(bad[0]!.detail).toContain("no chat_template");
  });

  it("slime: detects the OpenClaw-RL fork by --prm-enable in arguments.py", async () => {
    const fork = mkdtempSync(path.join(scratch, "slime-"));
    mkdirSync(path.join(fork, "slime", "utils"), { recursive: true });
    writeFileSync(path.join(fork, "train_async.py"), "");
    writeFileSync(path.join(fork, "slime", "utils", "arguments.py"), 'parser.add_argument("--prm-enable", action="store_true")\n');
    expect(await slimeHasPrmFlags(fork)).toBe(true);
    const withFork = await checkSlime(parseRecipe({ engine: { slime: { root: fork, model_args: MODEL_ARGS_FIXTURE } } }));
    expect(withFork.map((result) => result.status)).toEqual(["ok", "ok", "ok"]);
    writeFileSync(path.join(fork, "slime", "utils", "arguments.py"), "# upstream\n");
    const upstream = await checkSlime(parseRecipe({ engine: { slime: { root: fork, model_args: MODEL_ARGS_FIXTURE } } }));
    expect(upstream[1]).toMatchObject({ status: "fail" });
    expect(upstream[1]!.fix).toContain("judge.launch: standalone");
    const standalone = await checkSlime(parseRecipe({ judge: { launch: "standalone" }, engine: { slime: { root: fork, model_args: MODEL_ARGS_FIXTURE } } }));
    expect(standalone.every((result) => result.status === "ok")).toBe(true);
  });

  it("gpus: nvidia-smi absent, too few GPUs, enough GPUs", async () => {
    const originalPath = process.env.PATH;
    try {
      process.env.PATH = mkdtempSync(path.join(scratch, "empty-"));
      expect(await checkGpus(parseRecipe({}))).toMatchObject({ status: "fail", detail: expect.stringContaining("nvidia-smi is not installed") });
      const four = 'for i in 0 1 2 3; do echo "$i, NVIDIA H100 80GB HBM3, 81559 MiB"; done';
      process.env.PATH = executable("nvidia-smi", four);
      expect(await checkGpus(parseRecipe({}))).toMatchObject({ status: "fail", detail: expect.stringContaining("4 GPU(s) visible (NVIDIA H100 80GB HBM3), cluster.gpus_per_node asks for 8") });
      expect(await checkGpus(parseRecipe({ cluster: { gpus_per_node: 4, actor_gpus: 2, rollout_gpus: 1, prm_gpus: 1, actor_tp: 2, rollout_tp: 1, prm_tp: 1 } }))).toMatchObject({ status: "ok" });
    } finally {
      process.env.PATH = originalPath;
    }
  });

  it("python: one line per module from the interpreter's import report; a missing interpreter says so", async () => {
    const report = JSON.stringify({ torch: { ok: true, version: "2.5" }, ray: { ok: true }, sglang: { ok: false, error: "ModuleNotFoundError: No module named 'sglang'" }, slime: { ok: true }, openclaw_rl: { ok: true } });
    const folder = executable("fake-python", `echo '${report}'`);
    const results = await checkPythonImports(parseRecipe({ engine: { slime: { python: path.join(folder, "fake-python") } } }), "/x");
    expect(results.map((result) => result.status)).toEqual(["ok", "ok", "fail", "ok", "ok"]);
    expect(results[2]!.detail).toContain("cannot import sglang");
    const missing = await checkPythonImports(parseRecipe({ engine: { slime: { python: "/nonexistent/python3" } } }), "/x");
    expect(missing).toEqual([expect.objectContaining({ status: "fail", detail: "engine.slime.python (/nonexistent/python3) was not found" })]);
  });

  it("sglang: the recipe's stream flag must exist in the installed SGLang (slime derives --sglang-* from its fields)", async () => {
    const answer = (fields: Record<string, boolean>) => executable("fake-python", `echo '${JSON.stringify({ ok: true, stream_output: false, incremental_streaming_output: false, ...fields })}'`);
    const recipe = (python: string, flag?: string) => parseRecipe({ engine: { slime: { python, ...(flag ? { stream_output_flag: flag } : {}) } } });
    const old = path.join(answer({ stream_output: true }), "fake-python");
    const recent = path.join(answer({ incremental_streaming_output: true }), "fake-python");
    expect(await checkSglangStreamFlag(recipe(old), "/x")).toMatchObject({ status: "ok" });
    expect(await checkSglangStreamFlag(recipe(recent), "/x")).toMatchObject({ status: "fail", fix: 'set engine.slime.stream_output_flag: "--sglang-incremental-streaming-output"' });
    const upstream = parseRecipe({ engine: { slime: { python: recent, flavor: "upstream" } }, judge: { launch: "standalone" } }); // its default flag
    expect(await checkSglangStreamFlag(upstream, "/x")).toMatchObject({ status: "ok" });
    expect(await checkSglangStreamFlag(recipe(path.join(answer({}), "fake-python")), "/x")).toMatchObject({ status: "fail" });
    expect(await checkSglangStreamFlag(recipe("/nonexistent/python3"), "/x")).toMatchObject({ status: "skip" });
  });

  it("rehearsal: only tokenizer, ports, records.dir and disk apply", async () => {
    const folder = checkpoint({ "tokenizer.json": "{}", "tokenizer_config.json": JSON.stringify({ chat_template: "t" }) });
    const [policy, judge, proxy, admin] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const rehearsal = parseRecipe({ engine: { kind: "rehearsal", rehearsal: { policy_port: policy, judge_port: judge } }, proxy: { port: proxy, admin_port: admin }, model: { path: folder }, records: { dir: scratch } });
    const report = await runDoctor(rehearsal, { cwd: scratch, packageRoot: "/x", resolveTokenizerFolder: identity });
    expect([...new Set(report.results.map((result) => result.topic))]).toEqual(["tokenizer", "port", "records", "disk"]);
    expect(report.ok).toBe(true);
    expect(report.notApplicable[0]).toContain("do not apply");
  });

  it("records: a records.dir that cannot be created fails with the OS reason and the fix", async () => {
    const file = path.join(scratch, "a-file");
    writeFileSync(file, "");
    const rehearsal = parseRecipe({ engine: { kind: "rehearsal" }, model: { path: "builtin:qwen3" }, records: { dir: path.join(file, "sub") } });
    const report = await runDoctor(rehearsal, { cwd: scratch, packageRoot: "/x", resolveTokenizerFolder: identity });
    expect(report.results.find((result) => result.topic === "records")).toEqual({
      topic: "records",
      status: "fail",
      detail: `records.dir: cannot create ${file}/sub: ${file} is a file, not a folder (ENOTDIR)`,
      fix: "point records.dir at a folder you can create and write (--set records.dir=<folder>)",
    });
    expect(report.ok).toBe(false);
  });
});
