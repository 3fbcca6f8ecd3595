// doctor's checks against fixture folders and fixture executables: ports in use, tokenizer files, nvidia-smi
// present / absent / too few GPUs, the Python import report; and which checks apply per engine. The installed
// slime and SGLang are tests/cli/doctor-installation.test.ts's.
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/loopback.ts";
import { parseRecipe } from "../../cli/recipe-file.ts";
import { reportLine } from "../../launchers/checks/check-result.ts";
import { checkCheckpoints } from "../../launchers/checks/checkpoint-check.ts";
import { runDoctor } from "../../launchers/checks/doctor.ts";
import { checkGpus } from "../../launchers/checks/gpu-check.ts";
import { checkPorts } from "../../launchers/checks/port-check.ts";
import { checkPythonImports } from "../../launchers/checks/python-check.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "doctor-"));

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
    expect(inUse.find((result) => result.path === "proxy.port")).toMatchObject({ status: "fail", path: "proxy.port", what: `port ${busyPort} for the proxy is already in use` });
    const twinPort = await freePort();
    const twins = await checkPorts(parseRecipe({ proxy: { port: twinPort, admin_port: twinPort } }));
    expect(twins.filter((result) => result.status === "fail").map(reportLine)).toContain(`proxy.admin_port: port ${twinPort} is given to both the proxy and the status API`);
  });

  it("tokenizer: needs tokenizer.json and a chat_template; weights need config.json", async () => {
    const good = checkpoint({ "tokenizer.json": "{}", "tokenizer_config.json": JSON.stringify({ chat_template: "{{ x }}" }), "config.json": "{}" });
    const noTemplate = checkpoint({ "tokenizer.json": "{}", "tokenizer_config.json": "{}" });
    const slime = (modelPath: string) => parseRecipe({ model: { path: modelPath } });
    expect((await checkCheckpoints(slime(good))).map((result) => result.status)).toEqual(["pass", "pass"]);
    const bad = await checkCheckpoints(slime(noTemplate));
    expect(bad.map((result) => [result.id, result.status])).toEqual([["tokenizer", "fail"], ["checkpoint", "fail"]]);
    expect(bad[0]!.what).toContain("neither chat_template.jinja nor a chat_template in tokenizer_config.json");
    // builtin:qwen3 is the Qwen3 files shipped with openclaw-rl (lib/model resolves it; nothing is injected)
    const builtin = await checkCheckpoints(parseRecipe({ engine: { kind: "rehearsal" }, model: { path: "builtin:qwen3" } }));
    expect(builtin).toEqual([expect.objectContaining({ id: "tokenizer", status: "pass", what: "model.path (builtin:qwen3): tokenizer.json and a chat_template" })]);
  });

  it("gpus: nvidia-smi absent, too few GPUs, enough GPUs", async () => {
    const originalPath = process.env.PATH;
    try {
      process.env.PATH = mkdtempSync(path.join(scratch, "empty-"));
      expect(await checkGpus(parseRecipe({}))).toMatchObject({ status: "fail", what: expect.stringContaining("nvidia-smi is not installed") });
      const four = 'for i in 0 1 2 3; do echo "$i, NVIDIA H100 80GB HBM3, 81559 MiB"; done';
      process.env.PATH = executable("nvidia-smi", four);
      expect(await checkGpus(parseRecipe({}))).toMatchObject({ status: "fail", what: expect.stringContaining("4 GPU(s) visible (NVIDIA H100 80GB HBM3), cluster.gpus_per_node asks for 8") });
      expect(await checkGpus(parseRecipe({ cluster: { gpus_per_node: 4, actor_gpus: 2, rollout_gpus: 1, prm_gpus: 1, actor_tp: 2, rollout_tp: 1, prm_tp: 1 } }))).toMatchObject({ status: "pass" });
    } finally {
      process.env.PATH = originalPath;
    }
  });

  it("python: one line per module from the interpreter's import report; a missing interpreter says so", async () => {
    const report = JSON.stringify({ torch: { ok: true, version: "2.5" }, ray: { ok: false, error: "ModuleNotFoundError: No module named 'ray'" }, openclaw_rl: { ok: true } });
    const folder = executable("fake-python", `echo '${report}'`);
    const results = await checkPythonImports(parseRecipe({ engine: { slime: { python: path.join(folder, "fake-python") } } }), "/x");
    expect(results.map((result) => result.status)).toEqual(["pass", "fail", "pass"]);
    expect(results[1]!.what).toContain("cannot import ray");
    const missing = await checkPythonImports(parseRecipe({ engine: { slime: { python: "/nonexistent/python3" } } }), "/x");
    expect(missing).toEqual([expect.objectContaining({ status: "fail", what: "engine.slime.python (/nonexistent/python3) was not found" })]);
  });

  it("rehearsal: start's own refusals (bind rule, a running start, the plan), tokenizer, model family, ports, records.dir and disk apply", async () => {
    const folder = checkpoint({ "tokenizer.json": "{}", "tokenizer_config.json": JSON.stringify({ chat_template: "t" }) });
    const [policy, judge, proxy, admin] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const rehearsal = parseRecipe({ engine: { kind: "rehearsal", rehearsal: { policy_port: policy, judge_port: judge } }, proxy: { port: proxy, admin_port: admin }, model: { path: folder }, records: { dir: scratch } });
    const report = await runDoctor(rehearsal, { cwd: scratch, packageRoot: "/x" });
    expect([...new Set(report.results.map((result) => result.id))]).toEqual(["proxy", "run", "plan", "tokenizer", "model-family", "port", "records", "disk"]);
    expect(report.results.find((result) => result.id === "model-family")).toMatchObject({ status: "warn" }); // template "t": no family known
    expect(report.ok).toBe(true);
    expect(report.notApplicable[0]).toContain("do not apply");
  });

  it("records: a records.dir that cannot be created fails with the OS reason and the fix", async () => {
    const file = path.join(scratch, "a-file");
    writeFileSync(file, "");
    const rehearsal = parseRecipe({ engine: { kind: "rehearsal" }, model: { path: "builtin:qwen3" }, records: { dir: path.join(file, "sub") } });
    const report = await runDoctor(rehearsal, { cwd: scratch, packageRoot: "/x" });
    expect(report.results.find((result) => result.id === "records")).toEqual({
      id: "records",
      status: "fail",
      what: `cannot create ${file}/sub: ${file} is a file, not a folder (ENOTDIR)`,
      fix: "point records.dir at a folder you can create and write (--set records.dir=<folder>)",
      path: "records.dir",
      code: "PATH_UNWRITABLE",
    });
    expect(report.ok).toBe(false);
  });
});
